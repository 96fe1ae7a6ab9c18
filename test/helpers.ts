import { exports } from "cloudflare:workers";
import { expect } from "vitest";

export const BASE = "http://localhost";

/** Calls the Worker's real fetch handler (router, middleware, bindings) as a partner would. */
export function call(path: string, init?: RequestInit): Promise<Response> {
  return exports.default.fetch(new Request(`${BASE}${path}`, init));
}

export async function json<T = unknown>(res: Response): Promise<T> {
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  return (await res.json()) as T;
}

export interface ErrorBody {
  detail: string;
  code: string;
  errors?: { field: string; message: string }[];
}

/** Asserts the uniform error shape and returns it. */
export async function expectError(res: Response, status: number, code: string): Promise<ErrorBody> {
  const body = await json<ErrorBody>(res);
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  expect(typeof body.detail).toBe("string");
  expect(body.detail.length).toBeGreaterThan(0);
  expect(res.headers.get("x-request-id")).toBeTruthy();
  return body;
}
