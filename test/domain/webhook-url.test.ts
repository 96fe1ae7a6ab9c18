import { describe, expect, it } from "vitest";
import { checkWebhookUrl, ipRange } from "../../src/domain/webhook-url";

const prod = { allowHttpLocal: false, blockedHosts: ["payout-signer.operator.example"] };
const dev = { allowHttpLocal: true };

// [url, the words the refusal must contain]
const HOSTILE: [string, string][] = [
  // IPv4 literals, in every spelling the URL parser folds into a dotted quad
  ["https://127.0.0.1/h", "loopback"],
  ["https://2130706433/h", "loopback"],
  ["https://0x7f.1/h", "loopback"],
  ["https://0177.0.0.1/h", "loopback"],
  ["https://127.1/h", "loopback"],
  ["https://10.0.0.5/h", "private"],
  ["https://172.16.3.4/h", "private"],
  ["https://192.168.1.1/h", "private"],
  ["https://169.254.169.254/latest/meta-data/", "link-local"],
  ["https://100.64.0.1/h", "carrier-grade NAT"],
  ["https://0.0.0.0/h", "unspecified"],
  ["https://224.0.0.1/h", "multicast"],
  ["https://240.0.0.1/h", "reserved"],
  ["https://198.18.0.1/h", "reserved"],
  ["https://8.8.8.8/h", "(public)"],
  // IPv6 literals, incl. v4-mapped / compatible / translated forms of internal v4 addresses
  ["https://[::1]/h", "loopback"],
  ["https://[::]/h", "unspecified"],
  ["https://[::ffff:127.0.0.1]/h", "loopback"],
  ["https://[::ffff:7f00:1]/h", "loopback"],
  ["https://[::ffff:169.254.169.254]/h", "link-local"],
  ["https://[::ffff:10.0.0.1]/h", "private"],
  ["https://[::127.0.0.1]/h", "IPv4-compatible"],
  ["https://[64:ff9b::a9fe:a9fe]/h", "NAT64"],
  ["https://[2002:a9fe:a9fe::1]/h", "6to4"],
  ["https://[fc00::1]/h", "private"],
  ["https://[fd12:3456::1]/h", "private"],
  ["https://[fe80::1]/h", "link-local"],
  ["https://[ff02::1]/h", "multicast"],
  ["https://[2001:db8::1]/h", "reserved"],
  ["https://[2606:4700::1111]/h", "(public)"],
  // Names for local and internal things
  ["https://localhost/h", "fully qualified"],
  ["https://LOCALHOST./h", "fully qualified"],
  ["https://api.localhost/h", "local or internal"],
  ["https://metadata.google.internal/computeMetadata/v1/", "local or internal"],
  ["https://printer.local/h", "local or internal"],
  ["https://router.home.arpa/h", "local or internal"],
  ["https://1.0.0.127.in-addr.arpa/h", "local or internal"],
  ["https://metadata/h", "fully qualified"],
  ["https://10.0.0.1.nip.io/h", "wildcard-DNS"],
  ["https://app.127.0.0.1.sslip.io/h", "wildcard-DNS"],
  ["https://localtest.me/h", "wildcard-DNS"],
  ["https://payout-signer.operator.example/sign", "this service's own hosts"],
  ["https://a.payout-signer.operator.example/sign", "this service's own hosts"],
  // Ports, schemes, credentials, junk
  ["https://partner.example.com:8443/h", "443"],
  ["https://partner.example.com:22/h", "443"],
  ["https://partner.example.com:0/h", "443"],
  ["http://partner.example.com/h", "https"],
  ["http://localhost:8787/h", "https"],
  ["ftp://partner.example.com/h", "https"],
  ["file:///etc/passwd", "https"],
  ["gopher://127.0.0.1:6379/_INFO", "https"],
  ["https://user:pw@partner.example.com/h", "credentials"],
  ["not a url", "not a valid URL"],
  ["https://", "not a valid URL"],
];

describe("webhook URL rules (no SSRF)", () => {
  it.each(HOSTILE)("refuses %s", (url, why) => {
    const r = checkWebhookUrl(url, prod);
    expect(r.ok).toBe(false);
    expect(r.ok ? "" : r.reason).toContain(why);
  });

  it.each([
    "https://partner.example.com/hooks",
    "https://hooks.partner.example.com:443/a/b?c=d",
    "https://PARTNER.example.com./h",
    "https://xn--bcher-kva.example/h",
    "https://partner.example.test/hooks",
  ])("accepts %s", (url) => {
    expect(checkWebhookUrl(url, prod)).toMatchObject({ ok: true });
  });

  it("normalises: default port dropped, host lower-cased", () => {
    expect(checkWebhookUrl("https://Hooks.Example.com:443/x", prod)).toEqual({
      ok: true,
      url: "https://hooks.example.com/x",
    });
  });

  it("dev (ALLOW_HTTP_WEBHOOKS) allows http and any port on localhost, 127.0.0.1 and [::1] only", () => {
    for (const ok of ["http://localhost:8833/h", "http://127.0.0.1/h", "http://[::1]:9000/h"])
      expect(checkWebhookUrl(ok, dev), ok).toMatchObject({ ok: true });
    for (const bad of ["http://10.0.0.1/h", "http://api.localhost/h", "http://partner.example.com/h"])
      expect(checkWebhookUrl(bad, dev), bad).toMatchObject({ ok: false });
    expect(checkWebhookUrl("http://localhost:8833/h", prod)).toMatchObject({ ok: false });
  });

  it("classifies IP addresses by range", () => {
    expect(ipRange("203.0.113.9")).toBe("reserved");
    expect(ipRange("1.1.1.1")).toBe("public");
    expect(ipRange("::ffff:192.168.0.1")).toBe("private");
    expect(ipRange("partner.example.com")).toBeNull();
  });
});
