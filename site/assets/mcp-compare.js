// Filters of the matrix pages: checkboxes (data-mc-filter="kind"|"rev") hide the table rows
// (data-kind) and columns or marks (data-rev) that are unticked. Without this script the
// filter boxes stay hidden and everything shows; nothing is fetched, nothing is stored.
(function () {
  "use strict";
  function apply(box) {
    var off = { kind: {}, rev: {} };
    box.querySelectorAll("input[data-mc-filter]").forEach(function (input) {
      if (!input.checked) off[input.dataset.mcFilter][input.value] = true;
    });
    document.querySelectorAll("[data-kind]").forEach(function (el) {
      el.classList.toggle("mc-off", !!off.kind[el.dataset.kind]);
    });
    document.querySelectorAll("[data-rev]").forEach(function (el) {
      el.classList.toggle("mc-off", !!off.rev[el.dataset.rev]);
    });
  }
  function init() {
    // Material's search overlay is a dialog without a name; give it one for screen readers.
    var search = document.querySelector(".md-search[role='dialog']");
    if (search && !search.getAttribute("aria-label")) search.setAttribute("aria-label", "Search");
    document.querySelectorAll("[data-mc-filters]").forEach(function (box) {
      box.hidden = false;
      box.addEventListener("change", function () { apply(box); });
      apply(box);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
