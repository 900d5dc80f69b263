// Marks the page when every image has loaded, so a headless browser can check it from the DOM
// (tests/compendium/workflow/browser.py reads it). Inlined in every page of the compendium's results site
// (base.html) and served by the API docs (docs/conf.py).
window.addEventListener("load", function () {
  var imgs = Array.prototype.slice.call(document.images);
  var broken = imgs.filter(function (i) { return !i.complete || i.naturalWidth === 0; });
  document.body.setAttribute("data-images", String(imgs.length));
  document.body.setAttribute("data-images-broken", String(broken.length));
  document.body.setAttribute("data-images-broken-src",
    broken.map(function (i) { return i.getAttribute("src"); }).join(" "));
});
