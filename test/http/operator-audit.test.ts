// Partner creation and key issue/revoke by the operator land in operator_audit with who did it.
import { describe, expect, it } from "vitest";
import { admin, json } from "../helpers";

interface Entry {
  operator: string;
  action: string;
  entity_type: string;
  entity_id: string;
  after: Record<string, unknown>;
  request_id: string;
}

const audit = async (type: string, id: string) =>
  (await json<{ data: Entry[] }>(await admin(`/audit?entity_type=${type}&entity_id=${id}`))).data;

describe("operator audit: partners and keys", () => {
  it("records partner creation, key issue and key revoke with the operator, never the secret", async () => {
    const as = { "X-Operator": "carol" };
    const created = await admin("/partners", { method: "POST", json: { name: "audited" }, headers: as });
    expect(created.status).toBe(201);
    const partner = await json<{ id: string }>(created);
    const [made] = await audit("partner", partner.id);
    expect(made).toMatchObject({ operator: "token:carol", action: "partner.create" });
    expect(made?.request_id).toBe(created.headers.get("x-request-id"));

    const issuedRes = await admin(`/partners/${partner.id}/keys`, { method: "POST", json: {}, headers: as });
    expect(issuedRes.status).toBe(201);
    const issued = await json<{ key_id: string; key: string }>(issuedRes);
    const revoked = await admin(`/partners/${partner.id}/keys/${issued.key_id}`, {
      method: "DELETE",
      headers: as,
    });
    expect(revoked.status).toBe(204);

    const entries = await audit("api_key", issued.key_id);
    expect(entries.map((e) => [e.operator, e.action])).toEqual([
      ["token:carol", "key.revoke"],
      ["token:carol", "key.issue"],
    ]);
    expect(entries[1]?.after).toMatchObject({ partner_id: partner.id, key_id: issued.key_id });
    const secret = issued.key.split(".").pop()!;
    expect(JSON.stringify(entries)).not.toContain(secret);
  });
});
