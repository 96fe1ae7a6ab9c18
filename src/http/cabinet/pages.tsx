// Cabinet pages. Each is one server-rendered document; write controls are rendered only for roles
// that may use them (the routes check the role again).

import { can, DEFAULT_ROLL_OVERLAP, ROLES, ROLL_OVERLAPS } from "../../domain/cabinet";
import {
  DEFAULT_SCOPES,
  KEY_SCOPES,
  movesFunds,
  parseScopes,
  SCOPE_DESCRIPTIONS,
} from "../../domain/key-scopes";
import { relativeTime } from "../../lib/relative-time";
import type { IssuedKey } from "../../services/api-keys";
import type { IssuedInvite } from "../../services/cabinet-auth";
import type { AuditEntry, InviteRow, PasskeyRow, SessionContext, UserRow } from "../../storage/cabinet";
import type { ApiKeyRow } from "../../storage/partners";
import { Csrf, Page, StepUpField } from "./layout";
import { docsUrl, Quickstart } from "./quickstart";
import { StackTable } from "./stack-table";

/**
 * A time to the second (several steps of one order can share a minute), relative on hover; in UTC
 * here, in the viewer's zone once the script ran (src/client/local-time.ts).
 */
export const when = (iso: string | null) =>
  iso ? (
    <time datetime={iso} data-local="seconds" title={relativeTime(Date.parse(iso), Date.now())}>
      {`${iso.replace("T", " ").slice(0, 19)} UTC`}
    </time>
  ) : (
    "—"
  );

export function SignInPage() {
  return (
    <Page title="Sign in" narrow>
      <section class="card">
        <h1>Sign in</h1>
        <p class="lead">Use the passkey you registered from your invitation.</p>
        <button type="button" data-ceremony="sign-in">
          Sign in with a passkey
        </button>
        <p data-status></p>
        <p class="muted">
          No account yet? Ask your team's admin, or your account manager, for an invitation.
        </p>
      </section>
    </Page>
  );
}

export function InvitePage(props: { token: string; email: string; partnerName: string; recovery: boolean }) {
  return (
    <Page title="Accept invitation" narrow>
      <section class="card">
        <h1>Welcome to {props.partnerName}</h1>
        <p class="lead">
          {props.recovery
            ? `Register a new passkey for ${props.email}. Your previous passkeys will stop working.`
            : `You were invited as ${props.email}. Create a passkey to sign in — there is no password.`}
        </p>
        <button type="button" data-ceremony="register" data-invite={`/cabinet/invite/${props.token}`}>
          Create passkey and sign in
        </button>
        <p data-status></p>
      </section>
    </Page>
  );
}

function keyStatus(k: ApiKeyRow, now: number) {
  if (k.revoked_at)
    return (
      <>
        <span class="badge bad">revoked</span>
        <div class="muted" data-testid="revoked-at">
          {when(k.revoked_at)}
        </div>
      </>
    );
  if (k.expires_at && Date.parse(k.expires_at) <= now) return <span class="badge bad">expired</span>;
  if (k.expires_at)
    return (
      <>
        <span class="badge warn">rolled</span>
        <div class="muted">works until {when(k.expires_at)}</div>
      </>
    );
  return <span class="badge ok">active</span>;
}

function allowlistText(k: ApiKeyRow) {
  return k.ip_allowlist ? (JSON.parse(k.ip_allowlist) as string[]).join(", ") : "";
}

export function KeysPage(props: {
  session: SessionContext;
  keys: ApiKeyRow[];
  issued?: IssuedKey | undefined;
  error?: string | undefined;
  /** The API's origin (this Worker's), for the quickstart and the reference links. */
  origin: string;
}) {
  const s = props.session;
  const write = can(s.user.role, "keys.write");
  const now = Date.now();
  const mode = s.mode ?? "live";
  // The header switch shows one mode's keys; the new key's mode is the one on show.
  const keys = props.keys.filter((k) => k.mode === mode);
  return (
    <Page
      title="API keys"
      session={s}
      current="/cabinet/keys"
      replaceUrl={props.issued ? "/cabinet/keys" : undefined}
    >
      <h1>{mode === "test" ? "Test API keys" : "API keys"}</h1>
      <p class="lead">
        {mode === "test" ? (
          <>
            Test keys (pk_test_…) create test orders: nothing real moves, and the{" "}
            <a href={docsUrl(props.origin, "tag/Test-mode")}>test helpers</a> drive them.
          </>
        ) : (
          <>
            Keys authenticate your servers to the partner API (<a href={docsUrl(props.origin)}>reference</a>
            ). Keep them secret.
          </>
        )}
      </p>
      {props.error ? <p class="error">{props.error}</p> : null}
      {props.issued ? (
        <div class="secret" role="alert">
          <strong>Store this key now.</strong> It is shown only this once; we keep only its hash.
          <code id="new-key" data-testid="new-key">
            {props.issued.key}
          </code>
          <button type="button" class="small" data-copy="new-key">
            Copy
          </button>
        </div>
      ) : null}
      {props.issued ? <Quickstart origin={props.origin} issued={props.issued} /> : null}
      {write ? (
        <section class="card">
          <h2>Create a key</h2>
          <form class="row" method="post" action="/cabinet/keys">
            <Csrf session={s} />
            <input type="hidden" name="mode" value={mode} />
            <label>
              Name
              <input name="name" required maxlength={100} placeholder="production server" />
            </label>
            <label>
              IP allowlist (optional)
              <input name="ip_allowlist" placeholder="203.0.113.0/24, 2001:db8::/32" />
            </label>
            <fieldset class="scopes" data-testid="scopes">
              <legend>Scopes: what the key may do</legend>
              {/* Says the boxes were on the form: none ticked is then an error, not the default. */}
              <input type="hidden" name="scopes_form" value="1" />
              {KEY_SCOPES.map((scope) => (
                <label class="check">
                  <input
                    type="checkbox"
                    name="scopes"
                    value={scope}
                    checked={DEFAULT_SCOPES.includes(scope)}
                  />
                  <code>{scope}</code>
                  <span class="muted">{SCOPE_DESCRIPTIONS[scope]}</span>
                </label>
              ))}
            </fieldset>
            <button type="submit" data-testid="create-key">
              {mode === "test" ? "Create test key" : "Create key"}
            </button>
            <button
              type="submit"
              class="secondary"
              name="preset"
              value="read-only"
              data-testid="create-read-only-key"
            >
              Create read-only key
            </button>
            <button type="submit" class="secondary" name="preset" value="app" data-testid="create-app-key">
              Create app key
            </button>
            <p class="muted" data-testid="app-key-warning">
              An app key (<code>pk_app_…</code>) is for code that runs on your users' devices — a wallet's
              swap module, a plugin. Treat it as public: anyone can read it out of the app. It only quotes
              with your pricing, creates orders and reads the orders it created; keep every other key on your
              servers.
            </p>
            <StepUpField when='input[name="scopes"][value="orders:act"]' />
          </form>
        </section>
      ) : null}
      <section class="card">
        <h2>{mode === "test" ? "Your test keys" : "Your keys"}</h2>
        <StackTable
          rows={keys}
          empty={mode === "test" ? "No test keys yet." : "No keys yet."}
          rowAttrs={(k) => ({ "data-key-id": k.key_id })}
          columns={[
            {
              label: "Key",
              cell: (k) => (
                <>
                  <strong>{k.name || "(unnamed)"}</strong>
                  <br />
                  <code>{k.key_id}</code>
                  {k.ip_allowlist ? <div class="muted">IPs: {allowlistText(k)}</div> : null}
                </>
              ),
            },
            {
              label: "Mode",
              cell: (k) => (
                <>
                  <span class="badge">{k.mode}</span>
                  {k.kind === "app" ? <span class="badge">app (public)</span> : null}
                </>
              ),
            },
            {
              label: "Scopes",
              cell: (k) => (
                <span data-testid="key-scopes">
                  {parseScopes(k.scopes).map((scope) => (
                    <code class="scope">{scope}</code>
                  ))}
                </span>
              ),
            },
            {
              label: "Created",
              cell: (k) => (
                <>
                  {when(k.created_at)}
                  <div class="muted">by {k.created_by}</div>
                </>
              ),
            },
            { label: "Last used", cell: (k) => when(k.last_used_at) },
            { label: "Status", cell: (k) => keyStatus(k, now) },
            write && { label: "Actions", cell: (k) => <KeyActions k={k} session={s} now={now} /> },
          ]}
        />
      </section>
    </Page>
  );
}

/** What a writer can do with a key: roll an active one, revoke or restrict a usable one. */
function KeyActions({ k, session, now }: { k: ApiKeyRow; session: SessionContext; now: number }) {
  const s = session;
  const active = !k.revoked_at && !k.expires_at;
  const usable = !k.revoked_at && !(k.expires_at && Date.parse(k.expires_at) <= now);
  return usable ? (
    <div class="actions">
      {active ? (
        <form class="row" method="post" action={`/cabinet/keys/${k.key_id}/roll`}>
          <Csrf session={s} />
          <select name="overlap" aria-label="Old key keeps working for">
            {Object.keys(ROLL_OVERLAPS).map((o) => (
              // An overlap by default: a roll should not cut off the servers still using the old key.
              <option value={o} selected={o === DEFAULT_ROLL_OVERLAP}>
                {o === "now" ? "old key stops now" : `old key works ${o}`}
              </option>
            ))}
          </select>
          <button class="secondary small" type="submit">
            Roll
          </button>
          {movesFunds(parseScopes(k.scopes)) ? <StepUpField /> : null}
        </form>
      ) : null}
      <form
        class="inline"
        method="post"
        action={`/cabinet/keys/${k.key_id}/revoke`}
        data-confirm="Revoke this key? Requests with it will fail within 30 seconds."
      >
        <Csrf session={s} />
        <button class="danger small" type="submit">
          Revoke
        </button>
      </form>
      <details>
        <summary>IP allowlist</summary>
        <form class="row" method="post" action={`/cabinet/keys/${k.key_id}/allowlist`}>
          <Csrf session={s} />
          <input name="ip_allowlist" value={allowlistText(k)} placeholder="any address" />
          <button class="secondary small" type="submit">
            Save
          </button>
        </form>
      </details>
    </div>
  ) : null;
}

export function TeamPage(props: {
  session: SessionContext;
  members: UserRow[];
  invites: InviteRow[];
  issued?: IssuedInvite | undefined;
  error?: string | undefined;
}) {
  const s = props.session;
  return (
    <Page
      title="Team"
      session={s}
      current="/cabinet/team"
      replaceUrl={props.issued ? "/cabinet/team" : undefined}
    >
      <h1>Team</h1>
      <p class="lead">Admins manage the team and keys; developers manage keys; viewers only read.</p>
      {props.error ? <p class="error">{props.error}</p> : null}
      {props.issued ? (
        <div class="secret" role="alert">
          <strong>Send this link to {props.issued.email}.</strong> It works once, for 72 hours.
          <code id="invite-url" data-testid="invite-url">
            {props.issued.url}
          </code>
          <button type="button" class="small" data-copy="invite-url">
            Copy
          </button>
        </div>
      ) : null}
      <section class="card">
        <h2>Invite a teammate</h2>
        <form class="row" method="post" action="/cabinet/team/invites">
          <Csrf session={s} />
          <label>
            E-mail
            <input name="email" type="email" required placeholder="name@company.com" />
          </label>
          <label>
            Role
            <select name="role">
              {ROLES.map((r) => (
                <option value={r} selected={r === "developer"}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          <button type="submit">Create invite link</button>
          <StepUpField />
        </form>
      </section>
      <section class="card">
        <h2>Members</h2>
        <StackTable
          rows={props.members}
          columns={[
            { label: "E-mail", cell: (m) => m.email },
            {
              label: "Role",
              cell: (m) =>
                m.status === "active" ? (
                  <form class="row" method="post" action={`/cabinet/team/${m.id}/role`}>
                    <Csrf session={s} />
                    <select name="role" aria-label={`Role of ${m.email}`}>
                      {ROLES.map((r) => (
                        <option value={r} selected={r === m.role}>
                          {r}
                        </option>
                      ))}
                    </select>
                    <button class="secondary small" type="submit">
                      Change
                    </button>
                    <StepUpField />
                  </form>
                ) : (
                  m.role
                ),
            },
            {
              label: "Status",
              cell: (m) => <span class={m.status === "active" ? "badge ok" : "badge"}>{m.status}</span>,
            },
            {
              label: "Actions",
              cell: (m) => (
                <div class="actions">
                  {m.status === "active" ? (
                    <form
                      class="inline"
                      method="post"
                      action={`/cabinet/team/${m.id}/remove`}
                      data-confirm={`Remove ${m.email}? Their sessions end at once.`}
                    >
                      <Csrf session={s} />
                      <button class="danger small" type="submit">
                        Remove
                      </button>
                    </form>
                  ) : null}
                  <form class="inline" method="post" action="/cabinet/team/invites">
                    <Csrf session={s} />
                    <input type="hidden" name="email" value={m.email} />
                    <input type="hidden" name="role" value={m.role} />
                    <button
                      class="secondary small"
                      type="submit"
                      title="Lost access: replaces their passkeys"
                    >
                      New invite
                    </button>
                    <StepUpField />
                  </form>
                </div>
              ),
            },
          ]}
        />
      </section>
      <section class="card">
        <h2>Pending invites</h2>
        <StackTable
          rows={props.invites}
          empty="None."
          columns={[
            { label: "E-mail", cell: (i) => i.email },
            { label: "Role", cell: (i) => i.role },
            { label: "Expires", cell: (i) => when(i.expires_at) },
            { label: "Invited by", cell: (i) => i.created_by },
            {
              label: "",
              cell: (i) => (
                <form class="inline" method="post" action={`/cabinet/team/invites/${i.id}/revoke`}>
                  <Csrf session={s} />
                  <button class="danger small" type="submit">
                    Cancel
                  </button>
                </form>
              ),
            },
          ]}
        />
      </section>
    </Page>
  );
}

export function AuditPage(props: {
  session: SessionContext;
  entries: (AuditEntry & { id: number })[];
  nextBefore: number | null;
}) {
  return (
    <Page title="Audit log" session={props.session} current="/cabinet/audit">
      <h1>Audit log</h1>
      <p class="lead">Who did what in this cabinet, newest first.</p>
      <section class="card">
        <StackTable
          rows={props.entries}
          empty="Nothing yet."
          columns={[
            { label: "When", cell: (e) => when(e.created_at) },
            { label: "Who", cell: (e) => e.actor },
            { label: "What", cell: (e) => <code>{e.action}</code> },
            { label: "Target", cell: (e) => <span class="mono">{e.target ?? ""}</span> },
          ]}
        />
        {props.nextBefore ? (
          <div class="pager">
            <a href={`/cabinet/audit?before=${props.nextBefore}`}>Older entries →</a>
          </div>
        ) : null}
      </section>
    </Page>
  );
}

export function AccountPage(props: {
  session: SessionContext;
  passkeys: PasskeyRow[];
  error?: string | undefined;
}) {
  const s = props.session;
  return (
    <Page title="Passkeys" session={s} current="/cabinet/account">
      <h1>Your passkeys</h1>
      <p class="lead">Add a passkey on each device you use. Your last passkey cannot be removed.</p>
      {props.error ? <p class="error">{props.error}</p> : null}
      <section class="card">
        <StackTable
          rows={props.passkeys}
          columns={[
            { label: "Name", cell: (p) => p.name },
            { label: "Added", cell: (p) => when(p.created_at) },
            { label: "Last used", cell: (p) => when(p.last_used_at) },
            {
              label: "",
              cell: (p) =>
                props.passkeys.length > 1 ? (
                  <form class="inline" method="post" action={`/cabinet/account/passkeys/${p.id}/remove`}>
                    <Csrf session={s} />
                    <button class="danger small" type="submit">
                      Remove
                    </button>
                  </form>
                ) : null,
            },
          ]}
        />
      </section>
      <section class="card">
        <h2>Add a passkey</h2>
        <p class="muted">One of your passkeys confirms it first, with your PIN, fingerprint or face.</p>
        <div class="row">
          <label>
            Name
            <input id="passkey-name" placeholder="work laptop" maxlength={60} />
          </label>
        </div>
        <p>
          <button type="button" data-ceremony="add-passkey">
            Add passkey
          </button>
        </p>
        <p data-status></p>
      </section>
      <section class="card">
        <h2>Sessions</h2>
        <form method="post" action="/cabinet/sign-out-everywhere">
          <Csrf session={s} />
          <button class="secondary" type="submit">
            Sign out everywhere
          </button>
        </form>
      </section>
    </Page>
  );
}
