// The cabinet's only script: passkey ceremonies (sign in, accept an invite, add a passkey, step-up), the
// copy button, confirmations, and the order detail's live status and address checks (charts have
// their own script, src/client/charts.ts).
// Pages work without it except where WebAuthn needs JavaScript.
import { startAuthentication, startRegistration } from "@simplewebauthn/browser";
import { postJson } from "./http";
import { localTimes } from "./local-time";
import { checkAddresses, followOrder } from "./order-detail";
import { stepUpForms, stepUpProof } from "./step-up";

function showStatus(el: HTMLElement, text: string, isError = false) {
  const status = el.closest("section, main")?.querySelector<HTMLElement>("[data-status]");
  if (!status) return;
  status.textContent = text;
  status.classList.toggle("error", isError);
}

type Ceremony = (button: HTMLButtonElement) => Promise<void>;

const ceremonies: Record<string, Ceremony> = {
  async "sign-in"() {
    const { challengeId, options } = await postJson<{ challengeId: string; options: never }>(
      "/cabinet/sign-in/options",
      {},
    );
    const response = await startAuthentication({ optionsJSON: options });
    const done = await postJson<{ redirect: string }>("/cabinet/sign-in", { challengeId, response });
    location.assign(done.redirect);
  },
  async register(button) {
    const base = button.dataset.invite ?? "";
    const { challengeId, userId, options } = await postJson<{
      challengeId: string;
      userId: string;
      options: never;
    }>(`${base}/options`, {});
    const response = await startRegistration({ optionsJSON: options });
    const done = await postJson<{ redirect: string }>(base, { challengeId, userId, response });
    location.assign(done.redirect);
  },
  async "add-passkey"(button) {
    const name = document.querySelector<HTMLInputElement>("#passkey-name")?.value ?? "";
    // First one of the member's own passkeys confirms (step-up), then the new one is made.
    showStatus(button, "Confirm with one of your passkeys first…");
    const step_up = await stepUpProof();
    showStatus(button, "Now create the new passkey…");
    const { challengeId, options } = await postJson<{ challengeId: string; options: never }>(
      "/cabinet/account/passkeys/options",
      {},
    );
    const response = await startRegistration({ optionsJSON: options });
    await postJson("/cabinet/account/passkeys", { challengeId, response, name, step_up });
    showStatus(button, "Passkey added.");
    location.reload();
  },
};

document.addEventListener("click", (event) => {
  const target = event.target as HTMLElement;
  const copy = target.closest<HTMLButtonElement>("[data-copy]");
  if (copy) {
    const source = document.getElementById(copy.dataset.copy ?? "");
    if (source) {
      void navigator.clipboard.writeText(source.textContent ?? "").then(
        () => {
          copy.textContent = "Copied";
        },
        () => {
          // Clipboard can be refused (permissions); select the text so it can be copied by hand.
          getSelection()?.selectAllChildren(source);
        },
      );
    }
    return;
  }
  const button = target.closest<HTMLButtonElement>("[data-ceremony]");
  const run = button ? ceremonies[button.dataset.ceremony ?? ""] : undefined;
  if (!button || !run) return;
  button.disabled = true;
  showStatus(button, "Waiting for your passkey…");
  run(button).catch((err: unknown) => {
    button.disabled = false;
    showStatus(button, err instanceof Error ? err.message : String(err), true);
  });
});

// A page that answers a form post (a new key's secret) puts its GET address in the history, so a
// reload shows the page again instead of re-posting the form (and never the secret twice).
const replaceUrl = document.body?.dataset.replaceUrl;
if (replaceUrl) history.replaceState(null, "", replaceUrl);

document.addEventListener("submit", (event) => {
  const form = event.target as HTMLFormElement;
  const question = form.dataset.confirm;
  if (question && !confirm(question)) event.preventDefault();
});

stepUpForms();
localTimes();
followOrder();
checkAddresses();
