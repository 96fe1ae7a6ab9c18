// The soak's payout gateway: the counting gateway of test/support/counting-gateway.ts (it never
// deduplicates: every accepted POST is a payment, recorded with its key and request) served over
// real HTTP on 127.0.0.1, so `wrangler dev` with PAYOUT_MODE=http pays through it and the soak can
// count payments per key from the gateway's own records. It speaks contract v2 (docs/adapters.md, "The payout gateway contract"):
// signed statements naming the key, outcome and time; a key answered "unknown key" is refused from
// then on; among its faults are unsigned 200s, replayed and stale "unknown key" answers, 401s and
// POSTs delayed past the lookup (delivered `settleAfterMs()` later, when the tombstone refuses them).
// Node runs the .ts module by type stripping.
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import { createCountingGateway } from "../../test/support/counting-gateway.ts";

const MAX_BODY = 64 * 1024;

/**
 * Starts the gateway on `port`. `faults` are the random fault rates (seeded) of the counting
 * gateway; a `pay_later` payment becomes visible to lookups `settleAfterMs()` later.
 *
 * @param {{ port: number, secret: string,
 *   faults: { sendFault: number, lookupFault: number, seed: number, forget?: number },
 *   settleAfterMs: () => number }} opts
 */
export async function startGateway(opts) {
  const gw = createCountingGateway({
    secret: opts.secret,
    sign: async (secret, text) => createHmac("sha256", secret).update(text).digest("hex"),
    settleAfterMs: opts.settleAfterMs,
  });
  gw.random = opts.faults;
  const server = createServer(async (req, res) => {
    const chunks = [];
    let size = 0;
    for await (const chunk of req) {
      size += chunk.length;
      if (size > MAX_BODY) {
        res.writeHead(413).end();
        return;
      }
      chunks.push(chunk);
    }
    try {
      const answer = await gw.handle({
        method: req.method ?? "GET",
        path: (req.url ?? "/").split("?")[0],
        header: (name) => {
          const v = req.headers[name];
          return typeof v === "string" ? v : null;
        },
        body: Buffer.concat(chunks).toString("utf8"),
      });
      // The payment (if any) is made: the caller gets no answer and cannot know.
      if ("drop" in answer) req.socket.destroy();
      else res.writeHead(answer.status, answer.headers).end(answer.body);
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, "127.0.0.1", resolve);
  });
  return {
    url: `http://127.0.0.1:${opts.port}`,
    gw,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
