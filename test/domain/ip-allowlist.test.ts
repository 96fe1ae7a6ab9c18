import { describe, expect, it } from "vitest";
import { ipAllowed, parseCidr, parseIp } from "../../src/domain/ip-allowlist";

const list = (...c: string[]) => c.map((t) => parseCidr(t)!);

describe("IP allowlists", () => {
  it("parses and canonicalises IPv4 and IPv6 CIDRs", () => {
    expect(parseCidr("203.0.113.7/24")?.text).toBe("203.0.113.0/24");
    expect(parseCidr("203.0.113.7")?.text).toBe("203.0.113.7/32");
    expect(parseCidr("2001:DB8:0:0:1::/32")?.text).toBe("2001:db8::/32");
    expect(parseCidr("::1")?.text).toBe("::1/128");
    expect(parseCidr("::/0")?.text).toBe("::/0");
    for (const bad of [
      "10.0.0.0/33",
      "256.1.1.1",
      "01.2.3.4",
      "1.2.3",
      "::1/129",
      "2001:db8:::1",
      "x",
      "1.2.3.4/",
    ])
      expect(parseCidr(bad), bad).toBeNull();
  });

  it("matches addresses of the same family inside a prefix", () => {
    const l = list("203.0.113.0/24", "2001:db8::/32");
    expect(ipAllowed(l, "203.0.113.255")).toBe(true);
    expect(ipAllowed(l, "203.0.114.0")).toBe(false);
    expect(ipAllowed(l, "2001:db8:ffff::1")).toBe(true);
    expect(ipAllowed(l, "2001:db9::1")).toBe(false);
    expect(ipAllowed(l, "not-an-ip")).toBe(false);
    expect(ipAllowed(list("0.0.0.0/0"), "8.8.8.8")).toBe(true);
  });

  it("treats an IPv4-mapped IPv6 address as IPv4", () => {
    expect(parseIp("::ffff:203.0.113.9")).toEqual({ family: 4, value: parseIp("203.0.113.9")!.value });
    expect(ipAllowed(list("203.0.113.0/24"), "::ffff:203.0.113.9")).toBe(true);
  });
});
