export { Catalog } from './catalog';
export {
  DEFAULT_LIST_PAGE_SIZE,
  notifyResourceUpdated,
  primitiveCapabilities,
  servePrimitives,
} from './serve';
export { type SubscriptionLimits } from './operation';
