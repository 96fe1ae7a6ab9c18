// Partner creation and key issue/revoke by the operator land in operator_audit with who did it,
// in the same D1 batch as the change.
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { admin, json } from "../../helpers";

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

/** Makes D1 refuse the INSERTs into `table` that match `when`, as a failing write would. */
async function refuse(table: string, when: string): Promise<() => Promise<unknown>> {
  await env.DB.prepare(
    `CREATE TRIGGER refuse_write BEFORE INSERT ON ${table} WHEN ${when} BEGIN SELECT RAISE(ABORT, 'refused'); END`,
  ).run();
  return () => env.DB.prepare("DROP TRIGGER refuse_write").run();
}

const auditRowsMentioning = async (text: string) =>
  (
    await env.DB.prepare("SELECT COUNT(*) AS n FROM operator_audit WHERE after_json LIKE ?")
      .bind(`%${text}%`)
      .first<{ n: number }>()
  )?.n;

describe("operator audit: one batch with the change", () => {
  it("a change that fails writes no audit row; an audit row that fails undoes the change", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const partnerNames = async () =>
      (await json<{ data: { name: string }[] }>(await admin("/partners"))).data.map((p) => p.name);

    // The change fails: nothing is recorded.
    let undo = await refuse("partners", "NEW.name = 'refused-partner'");
    expect((await admin("/partners", { method: "POST", json: { name: "refused-partner" } })).status).toBe(
      500,
    );
    await undo();
    expect(await auditRowsMentioning("refused-partner")).toBe(0);

    // The audit row fails: the change does not land either.
    undo = await refuse("operator_audit", "NEW.action = 'partner.create'");
    expect((await admin("/partners", { method: "POST", json: { name: "unaudited" } })).status).toBe(500);
    await undo();
    expect(await partnerNames()).not.toContain("unaudited");

    const partner = await json<{ id: string }>(
      await admin("/partners", { method: "POST", json: { name: "audited-batch" } }),
    );
    const keys = async () =>
      (
        await json<{ data: { key_id: string; revoked_at: string | null }[] }>(
          await admin(`/partners/${partner.id}/keys`),
        )
      ).data;
    undo = await refuse("operator_audit", "NEW.action = 'key.issue'");
    expect((await admin(`/partners/${partner.id}/keys`, { method: "POST", json: {} })).status).toBe(500);
    await undo();
    expect(await keys()).toEqual([]);

    const issued = await json<{ key_id: string }>(
      await admin(`/partners/${partner.id}/keys`, { method: "POST", json: {} }),
    );
    const revoke = () => admin(`/partners/${partner.id}/keys/${issued.key_id}`, { method: "DELETE" });
    undo = await refuse("operator_audit", "NEW.action = 'key.revoke'");
    expect((await revoke()).status).toBe(500);
    await undo();
    expect((await keys())[0]?.revoked_at).toBeNull();

    // Unrefused, each change and its row land together.
    expect((await revoke()).status).toBe(204);
    expect((await keys())[0]?.revoked_at).toBeTruthy();
    expect((await audit("api_key", issued.key_id)).map((e) => e.action)).toEqual(["key.revoke", "key.issue"]);
    expect((await audit("partner", partner.id)).map((e) => e.action)).toEqual(["partner.create"]);
  });
});
