// Sorts a table.sortable by the column whose header is clicked (again: the other way).
// Numeric columns sort by each cell's data-v, unknown values last; the page without script
// keeps the server's order.
(function () {
	document.querySelectorAll("table.sortable").forEach(function (table) {
		var body = table.tBodies[0];
		table.querySelectorAll("th[data-sort]").forEach(function (th, _, all) {
			var col = Array.prototype.indexOf.call(th.parentNode.children, th);
			th.classList.add("sort");
			th.tabIndex = 0;
			function key(row) {
				var cell = row.children[col];
				if (th.dataset.sort !== "num") return cell.textContent.trim().toLowerCase();
				var v = cell.hasAttribute("data-v") ? cell.getAttribute("data-v") : cell.textContent;
				var n = parseFloat(v);
				return isNaN(n) ? null : n;
			}
			function sort() {
				var ascending = th.getAttribute("aria-sort") !== "ascending";
				var rows = Array.prototype.slice.call(body.rows);
				rows.sort(function (a, b) {
					var x = key(a), y = key(b);
					if (x === y) return 0;
					if (x === null) return 1;
					if (y === null) return -1;
					return (x < y ? -1 : 1) * (ascending ? 1 : -1);
				});
				rows.forEach(function (r) { body.appendChild(r); });
				all.forEach(function (o) { o.removeAttribute("aria-sort"); });
				th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
			}
			th.addEventListener("click", sort);
			th.addEventListener("keydown", function (e) {
				if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); }
			});
		});
	});
})();
