import { describe, expect, it } from "vitest";
import { ipRateLimitSubject } from "../../src/domain/rate-limit";

describe("ipRateLimitSubject", () => {
  it("keeps IPv4 addresses whole", () => {
    expect(ipRateLimitSubject("203.0.113.7")).toBe("203.0.113.7");
    expect(ipRateLimitSubject("::ffff:203.0.113.7")).toBe("203.0.113.7");
  });

  it("groups IPv6 addresses by their /64, whatever their spelling", () => {
    const subject = "2001:db8:85a3:8d3::/64";
    for (const ip of [
      "2001:db8:85a3:8d3:1319:8a2e:370:7348",
      "2001:0db8:85a3:08d3:0000:0000:0000:0001",
      "2001:DB8:85A3:8D3::1",
      "2001:db8:85a3:8d3::",
    ]) {
      expect(ipRateLimitSubject(ip)).toBe(subject);
    }
    expect(ipRateLimitSubject("2001:db8:85a3:8d4::1")).not.toBe(subject);
    expect(ipRateLimitSubject("::1")).toBe("0:0:0:0::/64");
    expect(ipRateLimitSubject("2001:db8::")).toBe("2001:db8:0:0::/64");
  });

  it("leaves anything unparseable as its own bucket", () => {
    for (const ip of ["unknown", "1::2::3", "2001:db8:1:2:3:4:5", "2001:db8:zz::1", "1:2:3:4:5:6:7:8:9"]) {
      expect(ipRateLimitSubject(ip)).toBe(ip);
    }
  });
});
