import { startDynamoDbLocal } from "../support/dynamodb-local.js";
import { sessionIndexSuite } from "./session-index-suite.js";

sessionIndexSuite("DynamoDB Local", startDynamoDbLocal);
