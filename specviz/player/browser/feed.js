// The step player's feed: an invisible component that carries each round's data (and the session's side of it) to
// the player (player.js). The player's own element then never changes, so Streamlit sends its module, HTML and CSS
// once per session and afterwards only a reference to them (its message cache); each new round is this element.
export default function mount(component) {
  if (window.__specvizPlayerFeed) window.__specvizPlayerFeed(component);
  else window.__specvizPlayerPending = component;  // the player's module is not running yet: it takes it at mount
}
