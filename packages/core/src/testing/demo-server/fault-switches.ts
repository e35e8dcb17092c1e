import { z } from 'zod';

/** Answer of the standalone `GET` on `/legacy/mcp`: `'ok'` opens the SSE stream, a number refuses it. */
export type GetStreamFault = 'ok' | 404 | 405 | 406;

/** HTTP status the Streamable HTTP endpoints answer `initialize` / `server/discover` with. */
export type RefuseInitializeFault = 400 | 404 | 405 | null;

/**
 * Live fault switches of a demo server. Tests flip them directly; browsers use
 * `POST /control/faults`. Every switch is off after {@link FaultSwitches.reset}.
 */
export interface FaultSwitches {
  /**
   * Answer of the standalone `GET` stream on `/legacy/mcp`. `'ok'` (default) opens it; 404, 405
   * or 406 refuse it with that status (405 carries `Allow: POST, DELETE`).
   */
  getStream: GetStreamFault;
  /** Delay before every MCP endpoint answers (`/modern/mcp`, `/legacy/*`), in ms. Default 0. */
  delayMs: number;
  /**
   * One-shot: the next POST carrying a JSON-RPC request to `/modern/mcp` or `/legacy/mcp` is
   * answered `200` with `content-type: application/json` and a truncated JSON body (the request
   * is not processed). Turns itself off once used.
   */
  malformedJson: boolean;
  /**
   * One-shot: the next SSE response (a POST answered with `text/event-stream` on an MCP
   * endpoint, or a `/legacy/sse` stream) sends its headers, then the socket is destroyed before
   * the first event. The standalone `GET` on `/legacy/mcp` is left alone (see `getStream`).
   * Turns itself off once used.
   */
  dropMidStream: boolean;
  /**
   * While set, `/modern/mcp` and `/legacy/mcp` answer every `initialize` and `server/discover`
   * POST with this status and a plain-text body, so a client falls back to the legacy HTTP+SSE
   * transport. Default `null` (off).
   */
  refuseInitialize: RefuseInitializeFault;
  /**
   * The legacy endpoints forget every session at once (their streams are closed): the next
   * request with an old `Mcp-Session-Id` (or `?sessionId=`) gets `404`, as the spec requires.
   */
  expireSessions(): void;
  /** Turns every switch off (`getStream: 'ok'`, `delayMs: 0`, one-shots off, `refuseInitialize: null`). */
  reset(): void;
}

/** The plain-data view of {@link FaultSwitches} that `GET /control/faults` returns. */
export interface FaultSnapshot {
  getStream: GetStreamFault;
  delayMs: number;
  malformedJson: boolean;
  dropMidStream: boolean;
  refuseInitialize: RefuseInitializeFault;
}

/**
 * Body accepted by `POST /control/faults`: any subset of the switches, plus
 * `expireSessions: true` and `reset: true` (applied first) as actions.
 */
export const faultPatchSchema = z
  .object({
    reset: z.boolean().optional(),
    expireSessions: z.boolean().optional(),
    getStream: z
      .union([z.literal('ok'), z.literal(404), z.literal(405), z.literal(406)])
      .optional(),
    delayMs: z.number().int().min(0).max(60_000).optional(),
    malformedJson: z.boolean().optional(),
    dropMidStream: z.boolean().optional(),
    refuseInitialize: z
      .union([z.literal(400), z.literal(404), z.literal(405), z.null()])
      .optional(),
  })
  .strict();

/** A parsed `POST /control/faults` body. */
export type FaultPatch = z.infer<typeof faultPatchSchema>;

/**
 * Creates the fault switches of one demo server, all off.
 *
 * @param expireSessions What `expireSessions()` does (the server wires it to its legacy endpoints).
 */
export function createFaultSwitches(expireSessions: () => void): FaultSwitches {
  return {
    getStream: 'ok',
    delayMs: 0,
    malformedJson: false,
    dropMidStream: false,
    refuseInitialize: null,
    expireSessions,
    reset() {
      this.getStream = 'ok';
      this.delayMs = 0;
      this.malformedJson = false;
      this.dropMidStream = false;
      this.refuseInitialize = null;
    },
  };
}

/** Copies the current switch values into plain data. */
export function snapshotFaults(faults: FaultSwitches): FaultSnapshot {
  return {
    getStream: faults.getStream,
    delayMs: faults.delayMs,
    malformedJson: faults.malformedJson,
    dropMidStream: faults.dropMidStream,
    refuseInitialize: faults.refuseInitialize,
  };
}

/** Applies a `POST /control/faults` body: `reset` first, then the values, then `expireSessions`. */
export function applyFaultPatch(faults: FaultSwitches, patch: FaultPatch): void {
  if (patch.reset === true) faults.reset();
  if (patch.getStream !== undefined) faults.getStream = patch.getStream;
  if (patch.delayMs !== undefined) faults.delayMs = patch.delayMs;
  if (patch.malformedJson !== undefined) faults.malformedJson = patch.malformedJson;
  if (patch.dropMidStream !== undefined) faults.dropMidStream = patch.dropMidStream;
  if (patch.refuseInitialize !== undefined) faults.refuseInitialize = patch.refuseInitialize;
  if (patch.expireSessions === true) faults.expireSessions();
}
