// Sorts a table.sortable by the column whose header is clicked (again: the other way).
// Numeric columns sort by each cell's data-v, unknown values last. The sort is kept in the
// address as #sort=COLUMN (#sort=-COLUMN descending, COLUMN the header's text), so a sorted
// view can be bookmarked; the page without script keeps the server's order.
(function () {
	document.querySelectorAll("table.sortable").forEach(function (table) {
		var body = table.tBodies[0];
		var headers = Array.prototype.slice.call(table.querySelectorAll("th[data-sort]"));
		function name(th) { return th.textContent.trim().replace(/\s+/g, "-"); }
		function sortBy(th, ascending) {
			var col = Array.prototype.indexOf.call(th.parentNode.children, th);
			function key(row) {
				var cell = row.children[col];
				if (th.dataset.sort !== "num") return cell.textContent.trim().toLowerCase();
				var v = cell.hasAttribute("data-v") ? cell.getAttribute("data-v") : cell.textContent;
				var n = parseFloat(v);
				return isNaN(n) ? null : n;
			}
			var rows = Array.prototype.slice.call(body.rows);
			rows.sort(function (a, b) {
				var x = key(a), y = key(b);
				if (x === y) return 0;
				if (x === null) return 1;
				if (y === null) return -1;
				return (x < y ? -1 : 1) * (ascending ? 1 : -1);
			});
			rows.forEach(function (r) { body.appendChild(r); });
			headers.forEach(function (o) { o.removeAttribute("aria-sort"); });
			th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
		}
		headers.forEach(function (th) {
			th.classList.add("sort");
			th.tabIndex = 0;
			function toggle() {
				var ascending = th.getAttribute("aria-sort") !== "ascending";
				sortBy(th, ascending);
				history.replaceState(null, "", "#sort=" + (ascending ? "" : "-") + name(th));
			}
			th.addEventListener("click", toggle);
			th.addEventListener("keydown", function (e) {
				if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggle(); }
			});
		});
		var m = /^#sort=(-?)(.+)$/.exec(location.hash);
		if (m)
			headers.forEach(function (th) {
				if (name(th) === decodeURIComponent(m[2])) sortBy(th, m[1] !== "-");
			});
	});
})();
