/** The partner a request acts for (from its API key or cabinet session): what pricing and limits need. */
export interface Partner {
  id: string;
  name: string;
  markupBps: number;
  rateLimitPerMinute: number;
}
