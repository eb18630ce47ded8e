// Types of `@trailblaze/scripting/testing`.
import type { TrailblazeClient, TrailblazeContext, TrailblazeDevice, TrailblazeLogger, TrailblazeTarget } from "./index.js";

export interface MockCall {
  tool: string;
  args: Record<string, unknown>;
}

/** A canned reply: a non-empty `errorMessage` makes the call throw ("tool failed: <message>"). */
export interface MockStubResponse {
  textContent: string;
  errorMessage?: string;
  structuredContent?: unknown;
}

export type MockTrailblazeClient = TrailblazeClient & {
  /** Every `tools.<name>(args)` call, in order. */
  calls: MockCall[];
  /** Reply to every later call of `tool` with `response`, until `reset()`. */
  stub(tool: string, response: MockStubResponse): void;
  /** Forget the calls and the stubs. */
  reset(): void;
};

export declare function createMockClient(): MockTrailblazeClient;

export interface CreateMockContextOptions {
  platform: TrailblazeDevice["platform"];
  sessionId?: string;
  invocationId?: string;
  baseUrl?: string;
  device?: { widthPixels?: number; heightPixels?: number; driverType?: string };
  target?: Partial<TrailblazeTarget> & { id: string };
  memory?: Record<string, unknown>;
  logger?: TrailblazeLogger;
}

export declare function createMockContext(options: CreateMockContextOptions): TrailblazeContext;
