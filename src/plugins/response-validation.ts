import fp from 'fastify-plugin';
import { installResponseValidation } from '../http/response-validation.ts';

/**
 * VALIDATE_RESPONSES=1 (tests, staging): every JSON answer is checked against the schema the OpenAPI document
 * publishes for it (http/response-validation.ts). Registered after the header plugins so it sees the final type.
 */
export default fp(
  async (app) => {
    installResponseValidation(app);
  },
  { name: 'response-validation', fastify: '5.x', dependencies: ['headers'] },
);
