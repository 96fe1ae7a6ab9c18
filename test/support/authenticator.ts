// A software passkey authenticator for tests: P-256 keys from @noble/curves, attestation "none",
// assertions signed like a platform authenticator's. It produces the JSON a browser's
// @simplewebauthn/browser would post, so the server's real verification runs unchanged.
import { p256 } from "@noble/curves/nist.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64urlnopad } from "@scure/base";
import { isoCBOR } from "@simplewebauthn/server/helpers";

const b64 = (b: Uint8Array) => base64urlnopad.encode(b);
const utf8 = (s: string) => new TextEncoder().encode(s);
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const u32 = (n: number) => new Uint8Array([(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);

interface Credential {
  id: Uint8Array;
  secretKey: Uint8Array;
  userHandle: string;
  counter: number;
}

export interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}
export interface RequestOptions {
  challenge: string;
  rpId?: string;
}

export class SoftAuthenticator {
  readonly credentials: Credential[] = [];

  constructor(
    readonly origin = "http://localhost:8787",
    readonly rpId = new URL(origin).hostname,
  ) {}

  #clientData(type: string, challenge: string, origin: string) {
    return utf8(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** navigator.credentials.create(): a new credential bound to options.user.id. */
  register(options: CreationOptions, overrides: { origin?: string; rpId?: string } = {}) {
    const secretKey = p256.utils.randomSecretKey();
    const pub = p256.getPublicKey(secretKey, false); // 0x04 || x || y
    const id = crypto.getRandomValues(new Uint8Array(16));
    const cred: Credential = { id, secretKey, userHandle: options.user.id, counter: 0 };
    this.credentials.push(cred);
    const cose = new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, pub.slice(1, 33)],
      [-3, pub.slice(33, 65)],
    ]);
    const authData = concat(
      sha256(utf8(overrides.rpId ?? this.rpId)),
      new Uint8Array([0x45]), // UP | UV | AT
      u32(0),
      new Uint8Array(16), // aaguid
      new Uint8Array([0, id.length]),
      id,
      isoCBOR.encode(cose),
    );
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", authData],
      ]) as never,
    );
    return {
      id: b64(id),
      rawId: b64(id),
      type: "public-key",
      response: {
        clientDataJSON: b64(
          this.#clientData("webauthn.create", options.challenge, overrides.origin ?? this.origin),
        ),
        attestationObject: b64(attestationObject),
        transports: ["internal"],
      },
      clientExtensionResults: {},
    };
  }

  /** navigator.credentials.get(): an assertion by the given (default: latest) credential. */
  assert(
    options: RequestOptions,
    which = this.credentials.at(-1),
    overrides: { origin?: string; userVerified?: boolean } = {},
  ) {
    if (!which) throw new Error("no credential registered");
    which.counter++;
    // UP | UV, or UP alone: a security key touched without its PIN.
    const flags = overrides.userVerified === false ? 0x01 : 0x05;
    const authData = concat(sha256(utf8(this.rpId)), new Uint8Array([flags]), u32(which.counter));
    const clientDataJSON = this.#clientData(
      "webauthn.get",
      options.challenge,
      overrides.origin ?? this.origin,
    );
    const signature = p256.sign(concat(authData, sha256(clientDataJSON)), which.secretKey, { format: "der" });
    return {
      id: b64(which.id),
      rawId: b64(which.id),
      type: "public-key",
      response: {
        clientDataJSON: b64(clientDataJSON),
        authenticatorData: b64(authData),
        signature: b64(signature),
        userHandle: which.userHandle,
      },
      clientExtensionResults: {},
    };
  }
}
