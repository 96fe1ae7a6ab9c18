/**
 * A fake TronGrid over MSW: one chain of blocks (reorgs by replacing its top), a mempool, and every
 * endpoint the TronGrid reader uses — the tip, whole blocks and their tx infos (the block scan),
 * and each address's own v1 listings with their tx-info and block lookups (the listing) — all
 * answered from the same transactions, so what the scan finds can be compared with what the
 * address's own listing says. Shapes as in test/fixtures/chain/trongrid-*.json (recorded answers):
 * hex 41… addresses in blocks, 20-byte hex log addresses, T… addresses in the v1 lists.
 */
import { bytesToHex } from "@noble/hashes/utils.js";
import { HttpResponse, http } from "msw";
import { decodeBase58Check } from "../../src/domain/addresses/encoding";
import { tronAddressFromAccountId } from "../../src/domain/addresses/tron";
import { createMockNetwork } from "./msw";

export const TRON_BASE = "https://trongrid.scan.test";
export const USDT_CONTRACT = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
const TRANSFER_TOPIC = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

/** A valid T… address, distinct per (i, kind): kind 0x70 for watched addresses, others for strangers. */
export function tronAccount(i: number, kind = 0x70): string {
  const id = new Uint8Array(20);
  id[0] = kind;
  new DataView(id.buffer).setUint32(16, i);
  return tronAddressFromAccountId(id);
}

/** An address's 41… hex form, as blocks spell it. */
export function tronHex(address: string): string {
  const decoded = decodeBase58Check("bitcoin", address);
  if (!decoded.ok) throw new Error(`not a TRON address: ${address}`);
  return bytesToHex(decoded.bytes);
}

export interface TrxTx {
  kind: "trx";
  txID: string;
  from: string;
  to: string;
  sun: number;
  ok: boolean;
}
export interface TokenTx {
  kind: "token";
  txID: string;
  from: string;
  /** Transfer logs, in emission order; `contract` is the emitting token. */
  logs: Array<{ contract: string; from: string; to: string; value: bigint }>;
  ok: boolean;
}
export type TronTx = TrxTx | TokenTx;
export interface TronBlock {
  id: string;
  parent: string;
  number: number;
  txs: TronTx[];
}

const word = (hex: string) => hex.padStart(64, "0");
const blockId = (n: number, tag: number) =>
  n.toString(16).padStart(16, "0") + tag.toString(16).padStart(48, "0");

function blockTx(tx: TronTx) {
  const contract =
    tx.kind === "trx"
      ? {
          parameter: {
            value: { amount: tx.sun, owner_address: tronHex(tx.from), to_address: tronHex(tx.to) },
            type_url: "type.googleapis.com/protocol.TransferContract",
          },
          type: "TransferContract",
        }
      : {
          parameter: {
            value: {
              data: `a9059cbb${word(tronHex(tx.logs[0]?.to ?? tx.from).slice(2))}`,
              owner_address: tronHex(tx.from),
              contract_address: tronHex(tx.logs[0]?.contract ?? USDT_CONTRACT),
            },
            type_url: "type.googleapis.com/protocol.TriggerSmartContract",
          },
          type: "TriggerSmartContract",
        };
  return {
    ret: [{ contractRet: tx.ok ? "SUCCESS" : tx.kind === "trx" ? "OUT_OF_TIME" : "REVERT" }],
    signature: ["5b3f".padEnd(130, "0")],
    txID: tx.txID,
    raw_data: { contract: [contract], ref_block_bytes: "2818", expiration: 1_731_412_394_000 },
  };
}

/** Its tx info; a failed token tx keeps its logs here, so that only the result marks it failed. */
function txInfo(tx: TronTx, block: TronBlock) {
  const base = { id: tx.txID, fee: 345_000, blockNumber: block.number, blockTimeStamp: 1_731_412_335_000 };
  if (tx.kind === "trx") return { ...base, contractResult: [""], receipt: { net_usage: 268 } };
  return {
    ...base,
    ...(tx.ok ? {} : { result: "FAILED" }),
    contractResult: [word(tx.ok ? "1" : "")],
    contract_address: tronHex(tx.logs[0]?.contract ?? USDT_CONTRACT),
    receipt: { energy_usage_total: 64_285, net_fee: 345_000, result: tx.ok ? "SUCCESS" : "REVERT" },
    log: tx.logs.map((l) => ({
      address: tronHex(l.contract).slice(2),
      topics: [TRANSFER_TOPIC, word(tronHex(l.from).slice(2)), word(tronHex(l.to).slice(2))],
      data: word(l.value.toString(16)),
    })),
  };
}

export function fakeTron(start: number) {
  let serial = 0;
  const chain = {
    blocks: [{ id: blockId(start, 0), parent: blockId(start - 1, 0), number: start, txs: [] }] as TronBlock[],
    mempool: [] as TronTx[],
    stale: [] as TronBlock[],
  };
  const tip = () => chain.blocks.at(-1)!;
  const at = (n: number) => chain.blocks.find((b) => b.number === n);
  const blockJson = (b: TronBlock) => ({
    blockID: b.id,
    block_header: {
      raw_data: { number: b.number, parentHash: b.parent, timestamp: 1_731_412_335_000, version: 31 },
      witness_signature: "0f31".padEnd(130, "0"),
    },
    // Protobuf JSON leaves out an empty list: an empty block has no `transactions`.
    ...(b.txs.length > 0 ? { transactions: b.txs.map(blockTx) } : {}),
  });
  /** Mempool first, then the newest block down, as TronGrid lists an account's history. */
  const history = (): Array<[TronTx, TronBlock | null]> => [
    ...chain.mempool.map((tx): [TronTx, null] => [tx, null]),
    ...[...chain.blocks]
      .reverse()
      .flatMap((b) => [...b.txs].reverse().map((tx): [TronTx, TronBlock] => [tx, b])),
  ];
  const num = async (request: { json(): Promise<unknown> }) =>
    ((await request.json()) as { num: number }).num;

  const net = createMockNetwork(
    http.post(`${TRON_BASE}/wallet/getnowblock`, () => HttpResponse.json(blockJson(tip()))),
    http.post(`${TRON_BASE}/wallet/getblockbynum`, async ({ request }) => {
      const b = at(await num(request));
      return HttpResponse.json(b ? blockJson(b) : {});
    }),
    http.post(`${TRON_BASE}/wallet/gettransactioninfobyblocknum`, async ({ request }) => {
      const b = at(await num(request));
      return HttpResponse.json(b ? b.txs.map((tx) => txInfo(tx, b)) : []);
    }),
    http.post(`${TRON_BASE}/wallet/gettransactioninfobyid`, async ({ request }) => {
      const { value } = (await request.json()) as { value: string };
      const b = chain.blocks.find((x) => x.txs.some((tx) => tx.txID === value));
      return HttpResponse.json(b ? txInfo(b.txs.find((tx) => tx.txID === value)!, b) : {});
    }),
    http.get(`${TRON_BASE}/v1/accounts/:a/transactions`, ({ params }) => {
      const data = history()
        .filter(([tx]) => tx.kind === "trx" && tx.to === params.a)
        .map(([tx, b]) => ({ ...blockTx(tx), ...(b ? { blockNumber: b.number } : {}) }));
      return HttpResponse.json({ data: data.slice(0, 200), success: true, meta: { page_size: 200 } });
    }),
    http.get(`${TRON_BASE}/v1/accounts/:a/transactions/trc20`, ({ params, request }) => {
      const contract = new URL(request.url).searchParams.get("contract_address");
      const data = history().flatMap(([tx]) =>
        tx.kind === "token"
          ? tx.logs
              .filter((l) => l.to === params.a && (contract === null || l.contract === contract))
              .map((l) => ({
                transaction_id: tx.txID,
                token_info: { symbol: "USDT", address: l.contract, decimals: 6, name: "Tether USD" },
                block_timestamp: 1_731_412_335_000,
                from: l.from,
                to: l.to,
                type: "Transfer",
                value: l.value.toString(),
              }))
          : [],
      );
      return HttpResponse.json({ data: data.slice(0, 200), success: true, meta: { page_size: 200 } });
    }),
  );

  const txid = () => word((++serial).toString(16)).replace(/^0{2}/, "7e");
  /** A TRX transfer of `sun` to `to`. */
  const trx = (to: string, sun: number, options: { ok?: boolean; from?: string } = {}): TrxTx => ({
    kind: "trx",
    txID: txid(),
    from: options.from ?? tronAccount(serial, 0x11),
    to,
    sun,
    ok: options.ok ?? true,
  });
  /** A contract call emitting Transfer logs `[to, value, contract?, from?]` (USDT from a stranger by default). */
  const token = (
    logs: Array<[string, bigint, string?, string?]>,
    options: { ok?: boolean } = {},
  ): TokenTx => {
    const from = tronAccount(serial + 1, 0x12);
    return {
      kind: "token",
      txID: txid(),
      from,
      logs: logs.map(([to, value, contract, sender]) => ({
        contract: contract ?? USDT_CONTRACT,
        from: sender ?? from,
        to,
        value,
      })),
      ok: options.ok ?? true,
    };
  };
  /** Mines the mempool and `filler` strangers' transfers (TRX and USDT), with `placed` at the given positions. */
  const mine = (filler: number, placed: Array<[number, TronTx]> = []) => {
    const txs: TronTx[] = [];
    for (let i = 0; i < filler; i++)
      txs.push(
        i % 2 === 0
          ? trx(tronAccount(serial, 0x13), 1_000_000 + i)
          : token([[tronAccount(serial, 0x13), BigInt(2_000_000 + i)]]),
      );
    txs.push(...chain.mempool);
    chain.mempool = [];
    for (const [pos, tx] of placed) txs.splice(pos < 0 ? txs.length + 1 + pos : pos, 0, tx);
    const block: TronBlock = {
      id: blockId(tip().number + 1, chain.stale.length),
      parent: tip().id,
      number: tip().number + 1,
      txs,
    };
    chain.blocks.push(block);
    return block;
  };
  /** Replaces the tip block: its transactions go back to the mempool. */
  const reorgTip = () => {
    const old = chain.blocks.pop()!;
    chain.stale.push(old);
    chain.mempool.push(...old.txs);
  };
  return { chain, net, trx, token, mine, reorgTip };
}
