// widget.js: what a partner pastes (`<script src="https://<host>/widget.js" data-widget="wid_…"
// async>`). Inserts the widget's iframe after the script tag and follows the height the frame
// reports, accepting messages only from the widget's own origin and its own frame.
(() => {
  const script = document.currentScript as HTMLScriptElement | null;
  const wid = script?.dataset.widget;
  if (!script || !wid || !/^wid_[A-Za-z0-9]+$/.test(wid)) return;
  const origin = new URL(script.src).origin;
  const frame = document.createElement("iframe");
  const url = new URL(`/widget/${wid}`, origin);
  url.searchParams.set("origin", location.origin);
  frame.src = url.href;
  frame.title = script.dataset.title ?? "Swap";
  frame.loading = "lazy";
  frame.setAttribute("allow", "clipboard-write");
  frame.style.cssText = "width:100%;max-width:480px;height:620px;border:0;display:block;color-scheme:normal";
  script.after(frame);
  window.addEventListener("message", (e: MessageEvent) => {
    if (e.origin !== origin || e.source !== frame.contentWindow) return;
    const d = e.data as { type?: string; height?: number } | null;
    if (d?.type === "swap-widget:height" && typeof d.height === "number" && d.height > 0 && d.height < 5000)
      frame.style.height = `${Math.ceil(d.height)}px`;
  });
})();
