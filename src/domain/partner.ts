/** The partner a request acts for (from its API key or cabinet session): what pricing and limits need. */
export interface Partner {
  id: string;
  name: string;
  markupBps: number;
  rateLimitPerMinute: number;
  /** The mode of the key the request came with: false for a test key (docs/test-mode.md). */
  livemode: boolean;
}
