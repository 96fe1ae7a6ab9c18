// Step-up forms (src/services/step-up.ts): a form with a `step_up` field is sent only after a fresh
// passkey confirmation with user verification; the assertion travels in that field. Runs after
// the page's confirm() dialog, so a cancelled confirmation asks for no passkey.
import { startAuthentication } from "@simplewebauthn/browser";
import { postJson } from "./http";

/** The browser's refusal in words a member can act on; the server's own detail otherwise. */
function refusal(err: unknown): Error {
  if (err instanceof Error && err.name === "NotAllowedError")
    return new Error(
      "Not confirmed: your passkey must verify you (PIN, fingerprint or face). Nothing changed; try again.",
    );
  return err instanceof Error ? err : new Error(String(err));
}

/** One step-up ceremony: the proof the server's verifyStepUp takes, as the field's value. */
export async function stepUpProof(): Promise<string> {
  const { challengeId, options } = await postJson<{ challengeId: string; options: never }>(
    "/cabinet/step-up/options",
    {},
  );
  const response = await startAuthentication({ optionsJSON: options }).catch((err: unknown) => {
    throw refusal(err);
  });
  return JSON.stringify({ challengeId, response });
}

/** Whether the control `selector` names differs from what the page showed (no such control: yes). */
function changed(form: HTMLFormElement, selector: string): boolean {
  const control = form.querySelector<HTMLInputElement>(selector);
  if (!control) return true;
  return control.type === "checkbox"
    ? control.checked !== control.defaultChecked
    : control.value !== control.defaultValue;
}

export function stepUpForms(): void {
  document.addEventListener("submit", (event) => {
    const form = event.target as HTMLFormElement;
    const field = form.querySelector<HTMLInputElement>("input[data-step-up]");
    if (!field || event.defaultPrevented) return;
    const when = field.dataset.stepUpWhen;
    if (when && !changed(form, when)) return;
    event.preventDefault();
    const status = form.querySelector<HTMLElement>("[data-step-up-status]");
    const buttons = [...form.querySelectorAll<HTMLButtonElement>("button")];
    for (const b of buttons) b.disabled = true;
    if (status) status.textContent = "Confirm with your passkey…";
    stepUpProof().then(
      (proof) => {
        field.value = proof;
        form.submit();
      },
      (err: unknown) => {
        for (const b of buttons) b.disabled = false;
        if (status) status.textContent = refusal(err).message;
      },
    );
  });
}
