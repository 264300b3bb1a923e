// Filters the overview's rows as you type (the form also works without script, via ?q=).
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
	box.addEventListener("input", apply);
	apply();
})();
