// /track/{ref}: the person who swaps follows the order, without signing in (docs/widget.md); `ref`
// is the end of the order's tracking_url (src/domain/order-link.ts).
import { type Context, Hono } from "hono";
import { WIDGET_LOADER_FILE } from "../../generated/swap-assets";
import { tracking } from "../../services/order-status";
import type { AppEnv } from "../app-env";
import { publicRateLimit } from "../middleware/auth";
import { staticAsset } from "../static-assets";
import { Frame, type FrameOptions, swapCsp } from "./frame";
import { NO_SCRIPT_REFRESH_SECONDS, TrackBody } from "./page";

/** How often a tracking page polls while its event stream is down; the status API's cache window is shorter. */
export const TRACK_POLL_MS = 5000;

/** Renders an order's tracking page (also inside a widget's frame), or a plain 404 page. */
export async function renderTracking(
  c: Context<AppEnv>,
  ref: string,
  frame: FrameOptions & { csp: string; belongsTo?: string },
) {
  const t = await tracking(c.env, c.get("config"), ref);
  c.header("Content-Security-Policy", frame.csp);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Cache-Control", "no-store");
  if (!t || (frame.belongsTo !== undefined && t.partnerId !== frame.belongsTo)) {
    return c.html(
      <Frame title="Order not found" {...frame}>
        <section class="card">
          <h1>Order not found</h1>
          <p class="muted">Check the link: it must be complete, exactly as you were given it.</p>
        </section>
      </Frame>,
      404,
    );
  }
  return c.html(
    <Frame
      title={`Swap ${t.status.coin_from} → ${t.status.coin_to}`}
      {...frame}
      noScriptRefreshSeconds={t.final ? undefined : NO_SCRIPT_REFRESH_SECONDS}
      mainAttrs={{
        // The page follows the order stream (or, while it is down, the status API) with what opened it.
        "data-track": ref.toLowerCase(),
        "data-updated-at": t.status.updated_at,
        "data-final": String(t.final),
        "data-poll-ms": String(TRACK_POLL_MS),
      }}
    >
      <TrackBody
        status={t.status}
        steps={t.steps}
        explorers={t.explorers}
        support={t.support}
        final={t.final}
        now={Date.now()}
      />
    </Frame>,
  );
}

export function createTrackPages() {
  const app = new Hono<AppEnv>();
  app.get("/:order_id", publicRateLimit, (c) =>
    renderTracking(c, c.req.param("order_id"), { csp: swapCsp([]) }),
  );
  return app;
}

/** The end user's pages' script and stylesheet, named by content hash. */
export function createSwapAssets() {
  const app = new Hono<AppEnv>();
  app.get("/:file", async (c) => {
    const file = c.req.param("file");
    // The loader's name is fixed, so it is served only as /widget.js, with a short cache.
    const asset =
      file === WIDGET_LOADER_FILE ? null : await staticAsset(c.env.ASSETS, `/swap-assets/${file}`);
    if (!asset) return c.notFound();
    return c.body(asset.body, 200, {
      "Content-Type": asset.type,
      "Cache-Control": "public, max-age=31536000, immutable",
      "X-Content-Type-Options": "nosniff",
    });
  });
  return app;
}
