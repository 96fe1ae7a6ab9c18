/**
 * JSON-RPC 2.0 over the shared chain HTTP client (EVM nodes, Solana RPC): single calls and batches,
 * `{error:{code,message}}` answers as ChainReaderError("rpc_error") with `rpcCode`, response ids
 * checked.
 */
import { z } from "zod";
import type { HttpClient } from "../http-client";
import { ChainReaderError, parseBody } from "./http-util";

const rpcResponseSchema = z.object({
  jsonrpc: z.literal("2.0").optional(),
  id: z.union([z.number(), z.string(), z.null()]),
  result: z.unknown().optional(),
  error: z.object({ code: z.number().optional(), message: z.string().optional() }).optional(),
});
type RpcResponse = z.infer<typeof rpcResponseSchema>;

export interface JsonRpc {
  call(method: string, params: unknown[]): Promise<unknown>;
  /** One HTTP request carrying several calls of `method`; results in the order of `paramsList`. */
  batch(method: string, paramsList: unknown[][]): Promise<unknown[]>;
}

/** JSON-RPC client POSTing to `url` (used exactly as given). */
export function createJsonRpc(source: string, http: HttpClient, url: string): JsonRpc {
  let nextId = 1;
  const invalid = (message: string) => new ChainReaderError(source, "invalid_body", message);

  const unwrap = (response: RpcResponse, method: string): unknown => {
    if (response.error) {
      const { code, message } = response.error;
      throw new ChainReaderError(
        source,
        "rpc_error",
        `${method}: ${message ?? "error"} (code ${code ?? "?"})`,
        {
          ...(code === undefined ? {} : { rpcCode: code }),
        },
      );
    }
    if (!("result" in response)) throw invalid(`${method}: response has neither result nor error`);
    return response.result;
  };

  const call = async (method: string, params: unknown[]): Promise<unknown> => {
    const id = nextId++;
    const body = await http.postJson(url, { jsonrpc: "2.0", id, method, params });
    const response = parseBody(source, rpcResponseSchema, body, `${method} response`);
    // An error answer is reported as such even when its id is null (JSON-RPC parse errors).
    if (response.id !== id && !response.error)
      throw invalid(`${method}: response id ${String(response.id)} is not ${id}`);
    return unwrap(response, method);
  };

  const batch = async (method: string, paramsList: unknown[][]): Promise<unknown[]> => {
    const ids = paramsList.map(() => nextId++);
    const body = await http.postJson(
      url,
      paramsList.map((params, i) => ({ jsonrpc: "2.0", id: ids[i], method, params })),
    );
    // A server that rejects the batch as a whole answers with a single error object.
    if (!Array.isArray(body)) {
      unwrap(parseBody(source, rpcResponseSchema, body, `${method} batch response`), method);
      throw invalid(`${method}: batch response is not an array`);
    }
    const responses = parseBody(source, z.array(rpcResponseSchema), body, `${method} batch response`);
    const byId = new Map(responses.map((r) => [r.id, r]));
    return ids.map((id) => {
      const response = byId.get(id);
      if (!response) throw invalid(`${method}: batch response lacks id ${id}`);
      return unwrap(response, method);
    });
  };

  return { call, batch };
}
