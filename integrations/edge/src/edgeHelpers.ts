/**
 * The few helpers of EdgeApp/edge-exchange-plugins that the plugin uses, as that repository has them
 * at commit e15e6c48cbf918d8364c7f4e86aa71ec3ae73a50 (src/util/swapHelpers.ts, src/util/utils.ts),
 * reduced to the spend-info path of a central exchange. Inside Edge's repository the plugin imports
 * Edge's own instead (README.md, "Moving it into Edge's repository").
 */
import { add, div, floor, mul } from "biggystring";
import type {
  EdgeCurrencyWallet,
  EdgeMemoOption,
  EdgeSpendInfo,
  EdgeSwapInfo,
  EdgeSwapQuote,
  EdgeSwapRequest,
  EdgeTokenId,
} from "edge-core-js/types";

/** Edge's `SwapOrder` for a central exchange: the spend to the deposit address and what it buys. */
export interface SwapOrder {
  request: EdgeSwapRequest;
  spendInfo: EdgeSpendInfo;
  swapInfo: EdgeSwapInfo;
  fromNativeAmount: string;
  expirationDate?: Date | undefined;
  minReceiveAmount?: string | undefined;
}

/** swapHelpers.ts: a quote's expiry at least `marginSeconds` ahead, so the user has time to approve. */
export function ensureInFuture(date?: Date, marginSeconds = 30): Date | undefined {
  if (date == null) return undefined;
  const target = Date.now() + marginSeconds * 1000;
  return target < date.valueOf() ? date : new Date(target);
}

function multiplier(wallet: EdgeCurrencyWallet, tokenId: EdgeTokenId): string {
  const denominations =
    tokenId == null
      ? wallet.currencyInfo.denominations
      : wallet.currencyConfig.allTokens[tokenId]?.denominations;
  const first = denominations?.[0];
  if (first == null) throw new Error(`No denomination for token ${String(tokenId)}`);
  return first.multiplier;
}

export const nativeToDenomination = (
  wallet: EdgeCurrencyWallet,
  native: string,
  tokenId: EdgeTokenId,
): string => {
  const m = multiplier(wallet, tokenId);
  return div(native, m, m.length);
};

/** Whole native units: an amount with more decimals than the coin has is cut, never rounded up. */
export const denominationToNative = (
  wallet: EdgeCurrencyWallet,
  amount: string,
  tokenId: EdgeTokenId,
): string => floor(mul(amount, multiplier(wallet, tokenId)), 0);

/** utils.ts: the wallet's segwit address where it has one, else its first. */
export async function getAddress(wallet: EdgeCurrencyWallet): Promise<string> {
  const addresses = await wallet.getAddresses({ tokenId: null });
  const chosen = addresses.find((a) => a.addressType === "segwitAddress") ?? addresses[0];
  if (chosen == null) throw new Error(`No address in wallet ${wallet.id}`);
  return chosen.publicAddress;
}

/** utils.ts: the memo type Edge's engines take per chain. */
export const memoType = (pluginId: string): EdgeMemoOption["type"] =>
  pluginId === "ripple" || pluginId === "stellar" ? "number" : "text";

/** swapHelpers.ts `makeSwapPluginQuote`: the transaction to the deposit address, approved later. */
export async function makeSwapPluginQuote(order: SwapOrder): Promise<EdgeSwapQuote> {
  const { request, spendInfo, swapInfo, fromNativeAmount, expirationDate, minReceiveAmount } = order;
  const { fromWallet } = request;
  const tx = await fromWallet.makeSpend(spendInfo);
  const action = tx.savedAction;
  if (action?.actionType !== "swap") throw new Error("Invalid swap action type");
  const toNativeAmount = action.toAsset.nativeAmount;
  if (toNativeAmount == null) throw new Error(`Invalid makeSwapPluginQuote args from ${swapInfo.pluginId}`);
  return {
    expirationDate,
    fromNativeAmount,
    isEstimate: action.isEstimate ?? false,
    minReceiveAmount,
    networkFee: {
      currencyCode: fromWallet.currencyInfo.currencyCode,
      nativeAmount: add(tx.parentNetworkFee ?? tx.networkFee, "0"),
      tokenId: null,
    },
    pluginId: swapInfo.pluginId,
    request,
    swapInfo,
    toNativeAmount,
    async approve(opts) {
      tx.metadata = { ...(opts?.metadata ?? {}), ...tx.metadata };
      const signed = await fromWallet.signTx(tx);
      const broadcast = await fromWallet.broadcastTx(signed);
      await fromWallet.saveTx(signed);
      return { transaction: broadcast, orderId: action.orderId, destinationAddress: action.payoutAddress };
    },
    async close() {},
  };
}
