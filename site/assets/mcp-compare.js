// Filters of the table pages: checkboxes (data-mc-filter="kind"|"rev") hide the tables of a
// kind of program on an area page (data-kind) and the revision columns of an implementation's
// grid (data-rev) that are unticked. The state lives in the address
// (?hide-kind=server&hide-rev=2024-11-05), so a filtered view can be shared.
// Without this script the filter boxes stay hidden and
// everything shows; nothing is fetched, nothing is stored.
(function () {
  "use strict";
  var PARAM = { kind: "hide-kind", rev: "hide-rev" };

  function fromAddress() {
    var params = new URLSearchParams(window.location.search);
    var off = { kind: {}, rev: {} };
    Object.keys(PARAM).forEach(function (what) {
      (params.get(PARAM[what]) || "").split(",").forEach(function (v) {
        if (v) off[what][v] = true;
      });
    });
    return off;
  }

  function toAddress(off) {
    var params = new URLSearchParams(window.location.search);
    Object.keys(PARAM).forEach(function (what) {
      var list = Object.keys(off[what]);
      if (list.length) params.set(PARAM[what], list.join(","));
      else params.delete(PARAM[what]);
    });
    var query = params.toString();
    var url = window.location.pathname + (query ? "?" + query : "") + window.location.hash;
    window.history.replaceState(null, "", url);
  }

  function apply(off) {
    document.querySelectorAll("[data-kind]").forEach(function (el) {
      el.classList.toggle("mc-off", !!off.kind[el.dataset.kind]);
    });
    document.querySelectorAll("[data-rev]").forEach(function (el) {
      el.classList.toggle("mc-off", !!off.rev[el.dataset.rev]);
    });
  }

  function read(boxes) {
    var off = { kind: {}, rev: {} };
    boxes.forEach(function (box) {
      box.querySelectorAll("input[data-mc-filter]").forEach(function (input) {
        if (!input.checked) off[input.dataset.mcFilter][input.value] = true;
      });
    });
    return off;
  }

  function init() {
    // Material's search overlay is a dialog without a name; give it one for screen readers.
    var search = document.querySelector(".md-search[role='dialog']");
    if (search && !search.getAttribute("aria-label")) search.setAttribute("aria-label", "Search");
    var boxes = document.querySelectorAll("[data-mc-filters]");
    if (!boxes.length) return;
    var off = fromAddress();
    boxes.forEach(function (box) {
      box.hidden = false;
      box.querySelectorAll("input[data-mc-filter]").forEach(function (input) {
        input.checked = !off[input.dataset.mcFilter][input.value];
      });
      box.addEventListener("change", function () {
        var now = read(boxes);
        apply(now);
        toAddress(now);
      });
    });
    apply(off);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
