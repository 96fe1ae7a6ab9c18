// The order detail page: it follows the order while it moves (polling the cabinet's small state
// JSON, re-rendering from the server only when something changed), and checks addresses typed
// into an action's form with the server's own rules as the member types.
import { postJson } from "./http";

const POLL_MS = 3000;
const CHECK_DELAY_MS = 300;

/** A member typing an address would lose it to a re-render: wait until the field is left empty. */
function busy(el: HTMLElement): boolean {
  return [...el.querySelectorAll<HTMLInputElement>("input:not([type=hidden])")].some(
    (i) => i.value !== "" || i === document.activeElement,
  );
}

async function rerender(el: HTMLElement): Promise<void> {
  const res = await fetch(location.href, { credentials: "same-origin" });
  if (!res.ok) return;
  const doc = new DOMParser().parseFromString(await res.text(), "text/html");
  const fresh = doc.querySelector<HTMLElement>("[data-live]");
  if (fresh) el.replaceWith(document.adoptNode(fresh));
}

export function followOrder(): void {
  if (!document.querySelector("[data-live]")) return;
  const tick = async () => {
    const el = document.querySelector<HTMLElement>("[data-live]");
    if (!el || el.dataset.final) return;
    try {
      const res = await fetch(el.dataset.live ?? "", { credentials: "same-origin" });
      if (res.ok) {
        const state = (await res.json()) as { updated_at: string; events: number };
        const moved = state.updated_at !== el.dataset.updated || String(state.events) !== el.dataset.events;
        if (moved && !busy(el)) await rerender(el);
      }
    } catch {
      // Offline for a moment: the next tick tries again.
    }
    setTimeout(tick, POLL_MS);
  };
  setTimeout(tick, POLL_MS);
}

const timers = new WeakMap<HTMLInputElement, number>();

async function check(input: HTMLInputElement): Promise<void> {
  const form = input.form;
  const out = input.parentElement?.querySelector<HTMLElement>("[data-check]");
  if (!form || !out) return;
  const address = input.value.trim();
  if (!address) {
    input.setCustomValidity("");
    out.textContent = "";
    return;
  }
  const base = form.action.replace(/\/[a-z]+$/, "");
  try {
    const result = await postJson<{ ok: boolean; detail?: string }>(`${base}/check-address`, {
      kind: input.dataset.validate,
      address,
    });
    if (input.value.trim() !== address) return; // typed on meanwhile: a newer check follows
    input.setCustomValidity(result.ok ? "" : (result.detail ?? "Not a valid address."));
    out.textContent = result.ok ? "Valid address." : (result.detail ?? "Not a valid address.");
    out.className = `check ${result.ok ? "ok" : "bad"}`;
  } catch (err) {
    out.textContent = err instanceof Error ? err.message : String(err);
    out.className = "check bad";
  }
}

export function checkAddresses(): void {
  document.addEventListener("input", (event) => {
    const input = event.target as HTMLInputElement;
    if (!input.matches?.("[data-validate]")) return;
    // Until the check answers, the form may not be sent with an unchecked address.
    input.setCustomValidity("Checking the address…");
    clearTimeout(timers.get(input));
    timers.set(
      input,
      window.setTimeout(() => void check(input), CHECK_DELAY_MS),
    );
  });
}
