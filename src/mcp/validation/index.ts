// Argument validation: a call's arguments checked against the tool's schema as the Go
// binding's server checks them (google/jsonschema-go), and refused in its words; schema
// references, the Go formats, and output schemas.
export {
  type ArgumentsCheck,
  checkContractDecides,
  compileArgumentsCheck,
  compileGeneral,
  compileServedCheck,
  contractDecides,
  withoutConstraints,
} from './arguments';
export { compileStructuredCheck } from './structured';
export {
  expandedSubschemas,
  foreignCheck,
  holdsArrayLongerThan,
  MAX_EXPANDED_SUBSCHEMAS,
  MAX_UNIQUE_ITEMS_CHECKED,
  requiresUniqueItems,
} from './check-cost';
