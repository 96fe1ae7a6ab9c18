// `partner invite`, `partner users`, `partner invites`, `user …`: the operator side of the partner
// cabinet, thin wrappers over /admin/v1/partners/{id}/invites|users (src/http/routes/admin/cabinet.ts).
import { formatRecord, formatTable, seg } from "./core.mjs";

const partnerId = { name: "partner_id", description: "the partner's id (a UUID, see `partner list`)" };
const userId = { name: "user_id", description: "the member's id (see `partner users <partner_id>`)" };

/** @type {Record<string, import("./core.d.mts").CommandSpec>} */
export const cabinetCommands = {
  "partner invite": {
    summary: "Invite someone to a partner's cabinet and print the one-time link (valid 72 h)",
    args: [partnerId],
    flags: {
      email: { type: "string", value: "email", required: true, description: "the invitee's e-mail address" },
      role: {
        type: "string",
        value: "role",
        description: "admin (default), developer or viewer",
      },
    },
    examples: [
      "partner invite 3f2c… --email dev@example.com",
      "partner invite 3f2c… --email ops@example.com --role viewer",
    ],
    async run({ args, flags, api, output, print }) {
      const body = { email: flags.email, ...(flags.role !== undefined ? { role: flags.role } : {}) };
      const inv = await api.post(`/partners/${seg(args.partner_id)}/invites`, body);
      output(inv, () => {
        print(`Invited ${inv.email} as ${inv.role}; the link works once, until ${inv.expires_at}:`);
        print("");
        print(inv.url);
      });
    },
  },
  "partner users": {
    summary: "List a partner's cabinet members",
    args: [partnerId],
    examples: ["partner users 3f2c…"],
    async run({ args, api, output, print }) {
      const res = await api.get(`/partners/${seg(args.partner_id)}/users`);
      output(res, ({ data }) =>
        print(
          data.length
            ? formatTable(
                ["ID", "EMAIL", "ROLE", "STATUS", "CREATED_AT"],
                data.map((u) => [u.id, u.email, u.role, u.status, u.created_at]),
              )
            : "No cabinet members yet (see `partner invite`).",
        ),
      );
    },
  },
  "partner invites": {
    summary: "List a partner's pending cabinet invites",
    args: [partnerId],
    examples: ["partner invites 3f2c…"],
    async run({ args, api, output, print }) {
      const res = await api.get(`/partners/${seg(args.partner_id)}/invites`);
      output(res, ({ data }) =>
        print(
          data.length
            ? formatTable(
                ["ID", "EMAIL", "ROLE", "EXPIRES_AT", "CREATED_BY"],
                data.map((i) => [i.id, i.email, i.role, i.expires_at, i.created_by]),
              )
            : "No pending invites.",
        ),
      );
    },
  },
  "partner invite-revoke": {
    summary: "Revoke a pending cabinet invite (its link stops working at once)",
    args: [
      partnerId,
      { name: "invite_id", description: "the invite's id (see `partner invites <partner_id>`)" },
    ],
    examples: ["partner invite-revoke 3f2c… 7d0e…"],
    async run({ args, api, output, print }) {
      await api.delete(`/partners/${seg(args.partner_id)}/invites/${seg(args.invite_id)}`);
      output({ partner_id: args.partner_id, invite_id: args.invite_id, revoked: true }, () =>
        print(`Revoked invite ${args.invite_id} of partner ${args.partner_id}.`),
      );
    },
  },
  "user sign-out": {
    summary: "End every cabinet session of a member",
    args: [partnerId, userId],
    examples: ["user sign-out 3f2c… 9a1b…"],
    async run({ args, api, output, print }) {
      const res = await api.post(
        `/partners/${seg(args.partner_id)}/users/${seg(args.user_id)}/revoke-sessions`,
        {},
      );
      output(res, () => print(`Ended ${res.revoked_sessions} session(s).`));
    },
  },
  "user deactivate": {
    summary: "Deactivate a cabinet member (sessions end at once; a new invite re-activates)",
    args: [partnerId, userId],
    examples: ["user deactivate 3f2c… 9a1b…"],
    async run({ args, api, output, print }) {
      const u = await api.post(`/partners/${seg(args.partner_id)}/users/${seg(args.user_id)}/deactivate`, {});
      output(u, () =>
        print(
          formatRecord([
            ["id", u.id],
            ["email", u.email],
            ["role", u.role],
            ["status", u.status],
          ]),
        ),
      );
    },
  },
};
