import { describe, expect, it } from "vitest";
import { etagOf, ifNoneMatch } from "../../src/lib/etag";

describe("etag", () => {
  it("is a quoted hash of the body: equal bodies, equal tags; any change, another tag", async () => {
    const a = await etagOf('{"a":1}');
    expect(a).toMatch(/^"[0-9a-f]{16}"$/);
    expect(await etagOf('{"a":1}')).toBe(a);
    expect(await etagOf('{"a":2}')).not.toBe(a);
  });

  it("If-None-Match compares weakly, in a list, and * matches", () => {
    const tag = '"0123456789abcdef"';
    expect(ifNoneMatch(tag, tag)).toBe(true);
    expect(ifNoneMatch(`W/${tag}`, tag)).toBe(true);
    expect(ifNoneMatch(`"other", W/${tag}`, tag)).toBe(true);
    expect(ifNoneMatch("*", tag)).toBe(true);
    expect(ifNoneMatch('"other"', tag)).toBe(false);
    expect(ifNoneMatch(undefined, tag)).toBe(false);
    expect(ifNoneMatch("", tag)).toBe(false);
    // A tag is compared whole: a prefix is not a match.
    expect(ifNoneMatch('"0123456789abcde"', tag)).toBe(false);
  });
});
