// The ten-minute integration (docs/integrate.md), runnable:
//   npm run build --prefix sdk && node examples/quickstart.ts http://localhost:8787 <api_key>
// Quote → create → follow until the order settles, with typed errors.
import { ApiError, createClient, type Order } from "@swap-partner-api/sdk";

const [baseUrl = "http://localhost:8787", apiKey] = process.argv.slice(2);
if (!apiKey) {
  console.error("usage: node examples/quickstart.ts <base_url> <api_key>");
  process.exit(2);
}

const client = createClient({ baseUrl, apiKey });
const SETTLED: Order["status"][] = ["completed", "refunded", "failed", "expired"];

try {
  const quote = await client.getRate({
    coin_from: "BTC",
    coin_to: "USDT",
    network_to: "TRX",
    amount: "0.01",
  });
  console.log(`0.01 BTC → ${quote.amount_to} USDT (limits ${quote.min_amount}–${quote.max_amount} BTC)`);

  const order = await client.createOrder({
    coin_from: "BTC",
    network_from: "BTC",
    coin_to: "USDT",
    network_to: "TRX",
    amount_from: "0.01",
    rate_type: "float",
    recipient_address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
  });
  console.log(`order ${order.short_id}: send 0.01 BTC to ${order.deposit_address} by ${order.expires_at}`);

  // Webhooks tell you when it moves (docs/webhooks.md); polling works too.
  let current = order;
  while (!SETTLED.includes(current.status)) {
    await new Promise((r) => setTimeout(r, 5000));
    current = await client.getOrder(order.id);
    console.log(`${current.status}${current.status_reason ? ` (${current.status_reason})` : ""}`);
  }
} catch (err) {
  if (err instanceof ApiError) {
    console.error(`API error ${err.status} ${err.code}: ${err.detail} (request ${err.requestId})`);
    process.exit(1);
  }
  throw err;
}
