// The cabinet's Settings page (admins only): the partner's markup, within the cap the operator
// set, and the contact e-mail. Changes are audited by the settings service.
import { type Context, Hono } from "hono";
import { z } from "zod";
import { updateSettings } from "../../services/partner-settings";
import { STEP_UP_FIELD } from "../../services/step-up";
import type { SessionContext } from "../../storage/cabinet";
import { getPartner, KEY_CACHE_TTL_MS, type PartnerRow } from "../../storage/partners";
import { ApiError, badRequest } from "../errors";
import { form } from "./forms";
import { Csrf, Notice, Page, StepUpField } from "./layout";
import { actorOf, type CabinetEnv, requireSession, type SignedInEnv, stepUpGate } from "./session";

const percent = (bps: number) => `${(bps / 100).toFixed(2)} %`;

export function SettingsPage(props: {
  session: SessionContext;
  partner: PartnerRow;
  notice?: string | undefined;
}) {
  const p = props.partner;
  return (
    <Page
      title="Settings"
      session={props.session}
      current="/cabinet/settings"
      replaceUrl={props.notice ? "/cabinet/settings" : undefined}
    >
      <h1>Settings</h1>
      <p class="lead">Your account as the exchange sees it. Changes are recorded in the audit log.</p>
      <Notice text={props.notice} />
      <section class="card" id="markup">
        <h2>Markup</h2>
        <p>
          Your markup is added to every quote your API keys request, and is your earning on each completed
          order. Now: <strong data-testid="markup">{p.markup_bps} bps</strong> ({percent(p.markup_bps)}); your
          cap is {p.max_markup_bps} bps ({percent(p.max_markup_bps)}), set by your account manager.
        </p>
        <form class="row" method="post" action="/cabinet/settings">
          <Csrf session={props.session} />
          <label>
            Markup (basis points)
            <input
              name="markup_bps"
              type="number"
              min={0}
              max={p.max_markup_bps}
              step={1}
              value={String(p.markup_bps)}
              required
            />
          </label>
          <button type="submit">Save markup</button>
        </form>
        <p class="muted">
          New quotes use a changed markup within {KEY_CACHE_TTL_MS / 1000} seconds; quotes and orders made
          before keep theirs.
        </p>
      </section>
      <section class="card">
        <h2>Contact e-mail</h2>
        <p class="muted">Where the exchange writes about your account (incidents, changes, invoices).</p>
        <form class="row" method="post" action="/cabinet/settings">
          <Csrf session={props.session} />
          <label class="grow">
            E-mail
            <input
              name="contact_email"
              type="email"
              maxlength={254}
              value={p.contact_email ?? ""}
              placeholder="ops@your-company.example"
            />
          </label>
          <button type="submit">Save e-mail</button>
          <StepUpField when='input[name="contact_email"]' />
        </form>
      </section>
    </Page>
  );
}

const Fields = z.object({
  markup_bps: z
    .string()
    .regex(/^\d{1,6}$/, "a whole number of basis points")
    .transform(Number)
    .optional(),
  contact_email: z
    .string()
    .trim()
    .transform((e) => (e === "" ? null : e))
    .pipe(z.email().max(254).nullable())
    .optional(),
});

async function render(c: Context<SignedInEnv>, notice?: string) {
  const s = c.get("cabinet");
  const partner = await getPartner(c.env.DB, s.user.partner_id);
  if (!partner) throw new ApiError(404, "not_found", "Partner not found.");
  return c.html(<SettingsPage session={s} partner={partner} notice={notice} />);
}

export function settingsPages(): Hono<CabinetEnv> {
  const app = new Hono<CabinetEnv>();
  const signedIn = (c: Context<CabinetEnv>) => c as unknown as Context<SignedInEnv>;
  app.get("/", requireSession("settings.write"), (c) => render(signedIn(c)));
  app.post("/", requireSession("settings.write"), async (c) => {
    const f = await form(c);
    const parsed = Fields.safeParse(f);
    if (!parsed.success)
      throw badRequest(`Invalid settings: ${parsed.error.issues[0]?.message ?? "bad value"}.`);
    const { markup_bps, contact_email } = parsed.data;
    await updateSettings(
      c.env.DB,
      actorOf(signedIn(c)),
      {
        ...(markup_bps !== undefined ? { markupBps: markup_bps } : {}),
        ...(contact_email !== undefined ? { contactEmail: contact_email } : {}),
      },
      stepUpGate(signedIn(c), f[STEP_UP_FIELD]),
    );
    return render(signedIn(c), "Saved.");
  });
  return app;
}
