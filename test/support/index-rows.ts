import type { IndexDetails } from "../../src/domain/order-index";

/** The public-view columns of an index row projected before them (migrations 0049, 0055): all null. */
export const NO_PUBLIC_VIEW = {
  status_reason: null,
  amount_from_expected: null,
  amount_to_expected: null,
  amount_from_received: null,
  amount_to_actual: null,
  rate_quoted: null,
  recipient_address: null,
  recipient_address_tag: null,
  refund_address: null,
  refund_address_tag: null,
  contract_from: null,
  contract_to: null,
  hold: null,
} satisfies Partial<IndexDetails>;
