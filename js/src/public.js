// The public names, shared by every entry point.
export { AjaxAnswer } from "./answer.js";
export { ErpClient } from "./client.js";
export { Column } from "./columns.js";
export { Dues } from "./dues.js";
export {
  DecodeError,
  ErpError,
  HttpStatusError,
  InvalidInputError,
  ServiceError,
  TransportError,
} from "./errors.js";
export { aging, creditStatus, DEFAULT_BUCKETS } from "./finance.js";
export { Table } from "./table.js";
