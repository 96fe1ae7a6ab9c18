// The frame of the end user's pages (tracking page, widget, referral page): the bundled script and
// stylesheet, an optional widget theme stylesheet, and nothing inline (their CSP allows 'self').
import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import { SWAP_SCRIPT, SWAP_STYLE } from "../../generated/swap-assets";

export const SWAP_ASSET_PATH = "/swap-assets";

export interface FrameOptions {
  /** light / dark / auto (the system's). */
  scheme?: "light" | "dark" | "auto";
  /** A widget's theme stylesheet (its accent colour). */
  themeHref?: string | undefined;
  /** Inside widget.js's iframe: the embedding page's origin, which hears the height messages. */
  parentOrigin?: string | undefined;
  embedded?: boolean;
  /** Extra script origins (Turnstile, only when the operator configured it). */
  extraScripts?: string[];
  /** Without JavaScript, reload the page this often (a tracking page that is not final). */
  noScriptRefreshSeconds?: number | undefined;
}

export function Frame(
  props: FrameOptions & { title: string; children?: Child; mainAttrs?: Record<string, string> },
) {
  return (
    <>
      {raw("<!doctype html>")}
      <html lang="en" data-theme={props.scheme ?? "auto"}>
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="referrer" content="no-referrer" />
          <title>{props.title}</title>
          <link rel="stylesheet" href={`${SWAP_ASSET_PATH}/${SWAP_STYLE}`} />
          {props.themeHref ? <link rel="stylesheet" href={props.themeHref} /> : null}
          <script src={`${SWAP_ASSET_PATH}/${SWAP_SCRIPT}`} defer></script>
          {props.noScriptRefreshSeconds ? (
            <noscript>
              <meta http-equiv="refresh" content={String(props.noScriptRefreshSeconds)} />
            </noscript>
          ) : null}
          {(props.extraScripts ?? []).map((s) => (
            <script src={s} async defer></script>
          ))}
        </head>
        <body class={props.embedded ? "embedded" : undefined} data-parent-origin={props.parentOrigin}>
          <main {...(props.mainAttrs ?? {})}>{props.children}</main>
          <footer class="powered">Exchange by Swap Partner API</footer>
        </body>
      </html>
    </>
  );
}

/**
 * The end user's pages' CSP: 'self' only, framed by nobody (the tracking page) or by the widget's
 * allowed origins; Turnstile's origin is added only where the widget uses it.
 */
export function swapCsp(frameAncestors: readonly string[], extra: readonly string[] = []): string {
  const more = extra.length ? ` ${extra.join(" ")}` : "";
  const ancestors = frameAncestors.length ? frameAncestors.join(" ") : "'none'";
  return `default-src 'self'; script-src 'self'${more}; frame-src${more || " 'none'"}; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors ${ancestors}`;
}
