// Filters the overview's rows as you type. On a server the form also works without script,
// via ?q=; in an exported site (the form is data-local) nothing is sent: the script reads ?q=
// from the address itself and filters here, so a search can still be bookmarked.
(function () {
	var box = document.getElementById("q");
	var rows = document.querySelectorAll("tr[data-search]");
	var count = document.getElementById("shown");
	if (!box) return;
	function apply() {
		var words = box.value.toLowerCase().split(/\s+/).filter(Boolean);
		var shown = 0;
		rows.forEach(function (r) {
			var text = r.getAttribute("data-search");
			var ok = words.every(function (w) { return text.indexOf(w) >= 0; });
			r.hidden = !ok;
			if (ok) shown++;
		});
		if (count) count.textContent = String(shown);
	}
	if (box.form && box.form.hasAttribute("data-local")) {
		var m = /[?&]q=([^&#]*)/.exec(location.search);
		if (m) box.value = decodeURIComponent(m[1].replace(/\+/g, " "));
		box.form.addEventListener("submit", function (e) {
			e.preventDefault();
			apply();
		});
	}
	box.addEventListener("input", apply);
	apply();
})();
