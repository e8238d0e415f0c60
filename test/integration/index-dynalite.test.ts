import { startDynalite } from "../../cli/local/servers.js";
import { sessionIndexSuite } from "./session-index-suite.js";

sessionIndexSuite("dynalite", () => startDynalite());
