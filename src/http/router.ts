import { OpenAPIHono } from "@hono/zod-openapi";
import type { Env as HonoEnv } from "hono";
import type { AppEnv } from "./app-env";
import { badRequest, type FieldProblem } from "./errors";

interface ZodIssueLike {
  path: PropertyKey[];
  message: string;
}

export function fieldErrors(issues: readonly ZodIssueLike[]): FieldProblem[] {
  return issues.map((i) => ({ field: i.path.map(String).join(".") || "(root)", message: i.message }));
}

export function describeFieldErrors(target: string, errors: FieldProblem[]): string {
  const first = errors[0];
  const head = first ? `${first.field}: ${first.message}` : "invalid value";
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
  return `Invalid ${target}: ${head}${more}`;
}

/**
 * Every router is created here so schema failures (missing field, wrong type, unknown enum) all
 * become the same 400 `invalid_request` with per-field `errors`.
 */
export function createRouter<E extends HonoEnv = AppEnv>(): OpenAPIHono<E> {
  return new OpenAPIHono<E>({
    defaultHook: (result) => {
      if (!result.success) {
        const errors = fieldErrors(result.error.issues);
        throw badRequest(describeFieldErrors(result.target, errors), errors);
      }
    },
  });
}
