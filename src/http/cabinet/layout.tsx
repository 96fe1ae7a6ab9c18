// The cabinet's page frame: header (name, navigation, Live/Test switch, who is signed in), the
// hashed script and stylesheet, and nothing inline (the CSP allows 'self' only).

import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import { can, type Permission } from "../../domain/cabinet";
import { CABINET_CHARTS_SCRIPT, CABINET_SCRIPT, CABINET_STYLE } from "../../generated/cabinet-assets";
import type { SessionContext } from "../../storage/cabinet";

export const PRODUCT = "Swap Partner API";

const NAV: { href: string; label: string; permission: Permission | null }[] = [
  { href: "/cabinet/overview", label: "Overview", permission: "orders.read" },
  { href: "/cabinet/orders", label: "Orders", permission: "orders.read" },
  { href: "/cabinet/earnings", label: "Earnings", permission: "orders.read" },
  { href: "/cabinet/payouts", label: "Payouts", permission: "orders.read" },
  { href: "/cabinet/keys", label: "API keys", permission: "keys.read" },
  { href: "/cabinet/webhooks", label: "Webhooks", permission: "webhooks.read" },
  { href: "/cabinet/widgets", label: "Widgets", permission: "orders.read" },
  { href: "/cabinet/logs", label: "Logs", permission: "keys.read" },
  { href: "/cabinet/team", label: "Team", permission: "team.read" },
  { href: "/cabinet/audit", label: "Audit log", permission: "audit.read" },
  { href: "/cabinet/settings", label: "Settings", permission: "settings.write" },
  { href: "/cabinet/account", label: "Passkeys", permission: null },
];

export function Page(props: {
  title: string;
  session?: SessionContext | undefined;
  current?: string;
  narrow?: boolean;
  /** Tables with many columns (orders): a wider main column. */
  wide?: boolean;
  /** Loads the chart script (uPlot) too. */
  charts?: boolean;
  /** Set on pages that answer a form post: the address a reload should GET. */
  replaceUrl?: string | undefined;
  children?: Child;
}) {
  const s = props.session;
  return (
    <>
      {raw("<!doctype html>")}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          {s ? <meta name="csrf-token" content={s.session.csrf_token} /> : null}
          <title>{`${props.title} · ${PRODUCT}`}</title>
          <link rel="stylesheet" href={`/cabinet/assets/${CABINET_STYLE}`} />
          <script src={`/cabinet/assets/${CABINET_SCRIPT}`} defer></script>
          {props.charts ? <script src={`/cabinet/assets/${CABINET_CHARTS_SCRIPT}`} defer></script> : null}
        </head>
        <body data-replace-url={props.replaceUrl}>
          <header class="top">
            <a class="brand" href="/cabinet">
              {PRODUCT}
              <small>{s ? s.partner.name : "Partner cabinet"}</small>
            </a>
            {s ? (
              <nav>
                {NAV.filter((n) => !n.permission || can(s.user.role, n.permission)).map((n) => (
                  <a href={n.href} aria-current={props.current === n.href ? "page" : undefined}>
                    {n.label}
                  </a>
                ))}
              </nav>
            ) : null}
            <span class="spacer"></span>
            {s ? (
              <nav class="mode-switch" aria-label="Live or test data" data-testid="mode-switch">
                <a href="?mode=live" aria-current={s.mode !== "test" ? "true" : undefined}>
                  Live
                </a>
                <a href="?mode=test" aria-current={s.mode === "test" ? "true" : undefined}>
                  Test
                </a>
              </nav>
            ) : null}
            {s ? (
              <form class="inline" method="post" action="/cabinet/sign-out">
                <input type="hidden" name="_csrf" value={s.session.csrf_token} />
                <span class="who">
                  {s.user.email} · {s.user.role}{" "}
                </span>
                <button class="secondary small" type="submit">
                  Sign out
                </button>
              </form>
            ) : null}
          </header>
          <main class={props.narrow ? "narrow" : props.wide ? "wide" : undefined}>{props.children}</main>
        </body>
      </html>
    </>
  );
}

/** Hidden CSRF field for every form a signed-in page posts. */
export const Csrf = (props: { session: SessionContext }) => (
  <input type="hidden" name="_csrf" value={props.session.session.csrf_token} />
);

/**
 * Makes its form a step-up form (src/services/step-up.ts): the page script fills this field with a
 * fresh passkey assertion before the form is sent; the route refuses the post without it. `when`
 * (a selector inside the form): only when that control differs from what the page showed, as the
 * server asks for a step-up only for such a change.
 */
export const StepUpField = (props: { when?: string }) => (
  <>
    <input type="hidden" name="step_up" data-step-up data-step-up-when={props.when} />
    <p class="check bad" data-step-up-status role="alert"></p>
  </>
);

/** What became of the form just sent, when a page says it (`failed`: it did not work). */
export const Notice = (props: { text: string | undefined; failed?: boolean | undefined }) =>
  props.text ? (
    <p class={props.failed ? "notice failed" : "notice"} role="status" data-testid="notice">
      {props.text}
    </p>
  ) : null;

export function Message(props: { title: string; text: string; session?: SessionContext | undefined }) {
  return (
    <Page title={props.title} session={props.session} narrow>
      <section class="card">
        <h1>{props.title}</h1>
        <p class="muted">{props.text}</p>
        <p>
          <a href="/cabinet">Go to the cabinet</a>
        </p>
      </section>
    </Page>
  );
}
