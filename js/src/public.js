// The public names, shared by every entry point.
export { ErpClient } from "./client.js";
export { Table } from "./table.js";
export { Column } from "./columns.js";
export {
  ErpError,
  InvalidInputError,
  TransportError,
  HttpStatusError,
  ServiceError,
  DecodeError,
} from "./errors.js";
