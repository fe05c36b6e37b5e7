// The package's entry for Node >= 18 (and Deno, Bun).
import { useWasm } from "./client.js";
import { loadWasm } from "./wasm-node.js";

useWasm(loadWasm);

export { ErpClient } from "./client.js";
export {
  ErpError,
  InvalidInputError,
  TransportError,
  HttpStatusError,
  ServiceError,
  DecodeError,
} from "./errors.js";
