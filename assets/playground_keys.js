// The Playground's clicker keys, installed once per browser tab (specviz/app/playground/transport.py loads this
// file). PageDown/PageUp (and Space) from a presentation clicker step the animation where no text field has
// focus; stepping replaces the browser-history entry instead of adding one per step. __KEY_…__ are the buttons'
// keys (specviz/app/playground/session.Keys) and __…_KEYS__ the bound keys (transport.CLICKER_STEP and
// CLICKER_BACK), filled in by specviz/app/assets.py.
(() => {
  const STEP_KEYS = __STEP_KEYS__, BACK_KEYS = __BACK_KEYS__;
  const w = window.parent;
  if (!w || w.__specvizPlaygroundKeys) return;
  w.__specvizPlaygroundKeys = true;
  const onPlayground = () => w.location.pathname.replace(/\/$/, "").endsWith("/playground");
  const push = w.history.pushState.bind(w.history);
  w.history.pushState = (data, title, url) => {
    try {
      const next = new URL(url, w.location.href);
      if (onPlayground() && next.pathname === w.location.pathname) return w.history.replaceState(data, title, url);
    } catch (e) {}
    return push(data, title, url);
  };
  w.document.addEventListener("keydown", (event) => {
    if (!onPlayground() || event.altKey || event.ctrlKey || event.metaKey) return;
    const el = w.document.activeElement;
    const typing = el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName)
      || el.closest('[data-testid="stDataFrame"], [data-testid="stDataEditor"], [role="grid"]'));
    if (typing) return;
    let key = null;
    // Space on a focused button presses that button, as it always does
    const onButton = event.key === " " && el && el.tagName === "BUTTON";
    if (STEP_KEYS.includes(event.key) && !onButton) key = "__KEY_FORWARD__";
    if (BACK_KEYS.includes(event.key)) key = "__KEY_BACK__";
    if (!key) return;
    const button = w.document.querySelector(".st-key-" + key + " button");
    if (button) { event.preventDefault(); event.stopPropagation(); button.click(); }
  }, true);
})();
