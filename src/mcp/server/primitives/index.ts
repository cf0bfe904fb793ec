export { Catalog } from './catalog';
export { DEFAULT_LIST_PAGE_SIZE, primitiveCapabilities, servePrimitives } from './serve';
export { ResourceFollows } from './follows';
export { type CheckedListen, checkListen, ResourceListeners } from './listen';
export { StdioResourceListens } from './stdio-listens';
export { forgetSubscriptions, notifyResourceUpdated } from './subscriptions';
export { type PrimitiveHost, type SubscriptionLimits } from './operation';
export { SubscriberShares } from './subscriber-shares';
