// The Playground's clicker keys, bound in the top document (st.html runs this script in the page itself, not
// in an iframe), so that they live as long as the browser tab: a presenter toggle, a trip to another page and
// back, a sidebar widget or a lecture loaded rebuild the page's elements, never this listener. The script runs
// again each time the Playground mounts; it then replaces its own listener (one listener at any time: a key
// never steps twice). specviz/app/playground/transport.py loads it; __KEY_…__ are the buttons' keys
// (specviz/app/playground/session.Keys) and __…_KEYS__ the bound keys (transport.CLICKER_STEP and CLICKER_BACK),
// filled in by specviz/app/assets.py.
//
// PageDown, Space and → press Step; PageUp and ← press Back; the listener takes them before Streamlit's own
// shortcut (→ ←) sees them, so each press is one click. A key is left to the page where it means something
// else: in a text field, a select box or a data grid, on a control reached with the keyboard (Tab), where Space
// presses a button or flips a toggle, and → ← on a slider, a radio or the tabs, which move by them. A control
// that was clicked with the mouse (a sidebar toggle, a radio, a slider, a button) does not keep the clicker's
// keys (PageDown, PageUp, Space): they step, and the control loses its focus so that Space does not flip it.
// Stepping replaces the browser-history entry instead of adding one per step.
(() => {
  const STEP_KEYS = __STEP_KEYS__, BACK_KEYS = __BACK_KEYS__;
  const STEP_BUTTON = "__KEY_FORWARD__", BACK_BUTTON = "__KEY_BACK__";
  const w = window;
  const onPlayground = () => w.location.pathname.replace(/\/$/, "").endsWith("/playground");
  const TEXT_INPUTS = ["text", "search", "number", "email", "password", "tel", "url", "date", "time",
                       "datetime-local", "month", "week"];
  const typing = (el) => !!el && (el.isContentEditable || el.tagName === "TEXTAREA" || el.tagName === "SELECT"
    || (el.tagName === "INPUT" && TEXT_INPUTS.includes((el.type || "text").toLowerCase()))
    || !!el.closest('[data-testid="stDataFrame"], [data-testid="stDataEditor"], [role="grid"], '
                    + '[role="combobox"], [role="listbox"], [role="menu"]'));
  // a slider, a radio or the tabs move by the arrows, clicked or not: there → and ← stay theirs (PageDown,
  // PageUp and Space still step)
  const ARROWS = ["ArrowRight", "ArrowLeft"];
  const movesByArrows = (el) => !!el.closest('input[type="range"], [role="slider"], input[type="radio"], '
                                             + '[role="radio"], [role="radiogroup"], [role="tab"], [role="tablist"]');
  // how the focus got where it is: Tab (the keyboard) or a click (:focus-visible cannot tell: a clicked toggle's
  // label hands the focus to its input, which then matches it)
  let tabbed = false;
  const byKeyboard = () => tabbed;
  const onPointer = () => { tabbed = false; };

  const onKey = (event) => {
    if (!onPlayground() || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const forward = STEP_KEYS.includes(event.key), back = BACK_KEYS.includes(event.key);
    if (!forward && !back) return;
    const el = w.document.activeElement;
    const focused = el && el !== w.document.body && el !== w.document.documentElement;
    // the control's own key: typing, a control reached with Tab, or the arrows of a control that moves by them
    if (focused && (typing(el) || byKeyboard() || (ARROWS.includes(event.key) && movesByArrows(el)))) return;
    const button = w.document.querySelector(".st-key-" + (forward ? STEP_BUTTON : BACK_BUTTON)
                                            + " button:not([disabled])");
    if (!button) return;  // another tab is open: the keys do what they always do
    event.preventDefault();
    event.stopPropagation();
    if (focused) el.blur();  // a clicked toggle or button lets go, so Space cannot flip or press it too
    if (!event.repeat) button.click();
  };
  // Space's default action on a clicked control would come on keyup: stop that too where keydown stepped
  const onKeyUp = (event) => {
    if (onPlayground() && event.key === " " && w.__specvizKeysStepped) {
      event.preventDefault();
      event.stopPropagation();
    }
    w.__specvizKeysStepped = false;
  };
  const onKeyDown = (event) => {
    if (event.key === "Tab") tabbed = true;
    const before = event.defaultPrevented;
    onKey(event);
    w.__specvizKeysStepped = !before && event.defaultPrevented;
  };

  const old = w.__specvizKeys;
  if (old) {
    w.removeEventListener("keydown", old.down, true);
    w.removeEventListener("keyup", old.up, true);
    w.removeEventListener("pointerdown", old.pointer, true);
  }
  w.addEventListener("keydown", onKeyDown, true);
  w.addEventListener("keyup", onKeyUp, true);
  w.addEventListener("pointerdown", onPointer, true);
  w.__specvizKeys = {down: onKeyDown, up: onKeyUp, pointer: onPointer, bound: (old ? old.bound : 0) + 1};

  // one history entry per page, not one per step (installed once per tab: the wrapper is kept)
  if (!w.__specvizHistory) {
    w.__specvizHistory = true;
    const push = w.history.pushState.bind(w.history);
    w.history.pushState = (data, title, url) => {
      try {
        const next = new URL(url, w.location.href);
        if (onPlayground() && next.pathname === w.location.pathname) return w.history.replaceState(data, title, url);
      } catch (e) {}
      return push(data, title, url);
    };
  }
})();
