import { assetIds, chainIdOf, displayContract } from "./asset-identity";
import type { IconSet } from "./icons";
import { iconUrl } from "./icons";
import { parseDecimal, toJsonNumber } from "./money";

/** A catalog row: one coin on one network (booleans as 0/1 and amounts as decimal strings, as stored). */
export interface CurrencyRow {
  id: string;
  coin: string;
  network: string;
  name: string;
  is_active: number;
  is_deposit_enabled: number;
  is_withdraw_enabled: number;
  min_amount: string;
  max_amount: string;
  min_confirmations: number;
  decimals: number;
  is_memo: number;
  withdraw_fee: string;
  contract_address: string | null;
  explorer_tx_url: string | null;
  explorer_address_url: string | null;
  sort_order: number;
}

export interface PublicCurrency {
  id: string;
  coin: string;
  network: string;
  name: string;
  is_active: boolean;
  is_deposit_enabled: boolean;
  is_withdraw_enabled: boolean;
  min_amount: number;
  max_amount: number;
  min_confirmations: number;
  decimals: number;
  is_memo: boolean;
  explorer_tx_url: string | null;
  explorer_address_url: string | null;
  icon_url: string | null;
  contract_address: string | null;
  chain_id: number | null;
  caip2: string | null;
  caip19: string | null;
}

/**
 * The contract's Currency (§2.1), with the asset's chain identity (EIP-155 chain id, CAIP-2 and
 * CAIP-19 ids; EVM contracts in EIP-55 case), for every active row, in catalog order.
 */
export function publicCurrencies(rows: readonly CurrencyRow[], icons: IconSet): PublicCurrency[] {
  return rows
    .filter((r) => r.is_active === 1)
    .map((r) => ({
      id: r.id,
      coin: r.coin,
      network: r.network,
      name: r.name,
      is_active: true,
      is_deposit_enabled: r.is_deposit_enabled === 1,
      is_withdraw_enabled: r.is_withdraw_enabled === 1,
      min_amount: toJsonNumber(parseDecimal(r.min_amount)),
      max_amount: toJsonNumber(parseDecimal(r.max_amount)),
      min_confirmations: r.min_confirmations,
      decimals: r.decimals,
      is_memo: r.is_memo === 1,
      explorer_tx_url: r.explorer_tx_url,
      explorer_address_url: r.explorer_address_url,
      icon_url: iconUrl(r.coin, icons),
      contract_address: r.contract_address === null ? null : displayContract(r.network, r.contract_address),
      chain_id: chainIdOf(r.network),
      ...assetIds(r.network, r.contract_address),
    }));
}
