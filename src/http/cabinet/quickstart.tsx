// The quickstart shown next to a freshly created key (docs/cabinet.md, "API keys"): curl and SDK
// snippets with that key and this deployment's address filled in, and the reference this Worker
// serves. Server-rendered only on the one response that shows the secret.
import type { IssuedKey } from "../../services/api-keys";
import { PARTNER_OPENAPI_PATH } from "../apis";

/** The API reference (Redoc at /docs) and its anchors: `tag/<Tag-name>`, `operation/<operationId>`. */
export const docsUrl = (origin: string, anchor?: string) => `${origin}/docs${anchor ? `#${anchor}` : ""}`;

const PAIR = { coin_from: "BTC", network_from: "BTC", coin_to: "USDT", network_to: "TRX" } as const;
const RECIPIENT = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";

export interface Snippets {
  curl: string;
  sdk: string;
  /** Whether the snippets create and drive a test order (a test key allowed to create orders). */
  order: boolean;
}

/** The snippets for one key: a quote for any key, and a test order walked to completed for a test key. */
export function snippets(origin: string, key: Pick<IssuedKey, "key" | "mode" | "scopes">): Snippets {
  const order = key.mode === "test" && key.scopes.includes("orders:write");
  const quote = `coin_from=${PAIR.coin_from}&coin_to=${PAIR.coin_to}&network_to=${PAIR.network_to}&amount=0.01`;
  const body = JSON.stringify({
    ...PAIR,
    amount_from: "0.01",
    rate_type: "float",
    recipient_address: RECIPIENT,
  });
  const curl = [
    `API=${origin}`,
    `KEY=${key.key}`,
    "",
    "# A quote",
    `curl -s "$API/api/v1/partner/rates?${quote}" -H "Authorization: Bearer $KEY"`,
    ...(order
      ? [
          "",
          "# A test order, its deposit, then its confirmations (it completes)",
          `ID=$(curl -s -X POST "$API/api/v1/partner/orders" -H "Authorization: Bearer $KEY" \\`,
          `  -H "Content-Type: application/json" -d '${body}' | jq -r .id)`,
          `curl -s -X POST "$API/api/v1/partner/test/orders/$ID/deposit" -H "Authorization: Bearer $KEY" | jq .status`,
          `curl -s -X POST "$API/api/v1/partner/test/orders/$ID/confirm" -H "Authorization: Bearer $KEY" | jq .status`,
        ]
      : []),
  ].join("\n");
  const sdk = [
    `import { createClient } from "@swap-partner-api/sdk";`,
    "",
    `const api = createClient({ baseUrl: "${origin}", apiKey: "${key.key}" });`,
    `const quote = await api.getRate({ coin_from: "${PAIR.coin_from}", coin_to: "${PAIR.coin_to}", network_to: "${PAIR.network_to}", amount: "0.01" });`,
    ...(order
      ? [
          `const order = await api.createOrder({ coin_from: "${PAIR.coin_from}", network_from: "${PAIR.network_from}", coin_to: "${PAIR.coin_to}", network_to: "${PAIR.network_to}",`,
          `  amount_from: "0.01", rate_type: "float", recipient_address: "${RECIPIENT}" });`,
          "await api.test.deposit(order.id);",
          "const done = await api.test.confirm(order.id);",
          `console.log(quote.amount_to, done.status); // "completed"`,
        ]
      : ["console.log(quote.rate, quote.amount_to);"]),
  ].join("\n");
  return { curl, sdk, order };
}

function Snippet(props: { id: string; label: string; text: string }) {
  return (
    <div class="snippet">
      <div class="row">
        <h3>{props.label}</h3>
        <button type="button" class="small secondary" data-copy={props.id}>
          Copy
        </button>
      </div>
      <pre id={props.id} data-testid={props.id} tabindex={0}>
        {props.text}
      </pre>
    </div>
  );
}

export function Quickstart(props: { origin: string; issued: IssuedKey }) {
  const s = snippets(props.origin, props.issued);
  const link = (anchor: string | undefined, text: string) => (
    <a href={docsUrl(props.origin, anchor)} target="_blank" rel="noopener">
      {text}
    </a>
  );
  return (
    <section class="card quickstart" data-testid="quickstart">
      <h2>Quickstart with this key</h2>
      <p class="muted">
        {s.order
          ? "A quote, then a test order taken to completed with the test helpers: nothing real moves."
          : props.issued.mode === "test"
            ? "A quote. This key cannot create orders (its scopes); a test key with orders:write can."
            : "A quote. Try orders with a test key first (switch the header to Test): live orders move real money."}
      </p>
      <Snippet id="quickstart-curl" label="curl" text={s.curl} />
      <Snippet id="quickstart-sdk" label="TypeScript SDK (@swap-partner-api/sdk)" text={s.sdk} />
      <p>
        Reference: {link(undefined, "API reference")} · {link("operation/getRate", "quotes")} ·{" "}
        {link("operation/createOrder", "creating orders")} · {link("tag/Test-mode", "test helpers")} ·{" "}
        <a href={`${props.origin}${PARTNER_OPENAPI_PATH}`}>OpenAPI document</a>
      </p>
    </section>
  );
}
