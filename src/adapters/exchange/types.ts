/** Exchange venues: turn the received deposit into the destination coin (DESIGN.md §1). */
export interface ExchangeRequest {
  orderId: string;
  coinFrom: string;
  networkFrom: string;
  coinTo: string;
  networkTo: string;
  /** The received deposit, in coin_from units (decimal string). */
  amountFrom: string;
  rateType: "float" | "fixed";
  rateQuoted: string;
  amountFromExpected: string;
  amountToExpected: string;
  decimalsTo: number;
  spreadBps: number;
  markupBps: number;
}

export type ExchangeResult =
  | { status: "done"; amountTo: string }
  | { status: "failed"; retryable: boolean; error: string };

export interface ExchangeVenue {
  execute(req: ExchangeRequest): Promise<ExchangeResult>;
}
