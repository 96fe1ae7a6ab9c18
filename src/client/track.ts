import { localTimes } from "./local-time";
import { initSwapForm } from "./swap-form";

// The end user's pages (tracking, widget, referral): copy buttons, the deposit countdown, live
// updates of a tracking page, and the embedded frame's height for widget.js. Each part finds its
// elements by data attributes and does nothing on a page without them.
function copyButtons(): void {
  for (const b of document.querySelectorAll<HTMLButtonElement>("button[data-copy]")) {
    b.hidden = false;
    b.addEventListener("click", () => {
      const target = document.getElementById(b.dataset.copy ?? "");
      const label = b.textContent;
      void navigator.clipboard?.writeText(target?.textContent?.trim() ?? "").then(() => {
        b.textContent = "Copied";
        setTimeout(() => {
          b.textContent = label;
        }, 1500);
      });
    });
  }
}

const pad = (n: number) => String(n).padStart(2, "0");

function countdowns(): void {
  for (const el of document.querySelectorAll<HTMLElement>("[data-countdown]")) {
    const end = Date.parse(el.dataset.countdown ?? "");
    if (!Number.isFinite(end)) continue;
    const tick = () => {
      const left = Math.max(0, Math.round((end - Date.now()) / 1000));
      el.textContent = left === 0 ? "expired" : `${Math.floor(left / 60)}:${pad(left % 60)} left`;
      if (left > 0) setTimeout(tick, 1000);
      else el.dispatchEvent(new CustomEvent("countdown-end", { bubbles: true }));
    };
    tick();
  }
}

/**
 * Follows the order on the keyless event stream (docs/events.md) and renders the page again when
 * it moved. While the stream is down it polls the status API instead, and tries the stream again
 * after a wait that doubles up to a minute.
 */
function followOrder(): void {
  const main = document.querySelector<HTMLElement>("main[data-track]");
  if (!main || main.dataset.final === "true") return;
  const id = main.dataset.track;
  const seen = Date.parse(main.dataset.updatedAt ?? "");
  const every = Number(main.dataset.pollMs ?? "5000");
  // An order's stream starts with its whole log: only a change newer than the page counts.
  const moved = (s: { updated_at: string }) => {
    if (Date.parse(s.updated_at) > seen) location.reload();
  };
  let polling = 0;
  let retryIn = every;
  let lastId = "";

  const poll = async () => {
    try {
      const res = await fetch(`/api/v1/orders/${id}/status`, { cache: "no-store" });
      if (res.ok) moved(await res.json());
    } catch {
      // Offline for a moment: try again at the next tick.
    }
  };
  const startPolling = () => {
    if (polling) return;
    void poll();
    polling = window.setInterval(() => void poll(), every);
  };

  const stream = () => {
    const resume = lastId ? `?last_event_id=${lastId}` : "";
    const source = new EventSource(`/api/v1/orders/${id}/events${resume}`);
    // EventSource reconnects by itself after a drop; one that is not back within a poll interval,
    // or that was refused (readyState CLOSED), hands over to polling.
    let down = 0;
    const up = () => {
      clearTimeout(down);
      down = 0;
    };
    const fallBack = () => {
      source.close();
      up();
      startPolling();
      setTimeout(stream, retryIn);
      retryIn = Math.min(retryIn * 2, 60_000);
    };
    source.onopen = () => {
      up();
      clearInterval(polling);
      polling = 0;
      retryIn = every;
    };
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) fallBack();
      else if (!down) down = window.setTimeout(fallBack, every);
    };
    source.addEventListener("order.status_changed", (e) => {
      up();
      lastId = e.lastEventId;
      moved(JSON.parse(e.data));
    });
  };
  if (typeof EventSource === "function") stream();
  else setTimeout(startPolling, every);
}

/** Inside widget.js's iframe: tells the embedding page how tall the content is. */
function reportHeight(): void {
  const parentOrigin = document.body.dataset.parentOrigin;
  if (window.parent === window || !parentOrigin) return;
  let last = 0;
  const send = () => {
    const h = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (h === last) return;
    last = h;
    window.parent.postMessage({ type: "swap-widget:height", height: h }, parentOrigin);
  };
  new ResizeObserver(send).observe(document.documentElement);
  send();
}

copyButtons();
countdowns();
localTimes();
followOrder();
initSwapForm();
reportHeight();
