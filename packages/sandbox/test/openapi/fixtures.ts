/**
 * Hand-written OpenAPI documents for the OpenAPI emulator's tests: a 3.0 pet store (HTTP bearer, JSON, form
 * and multipart bodies, path, query, header and cookie parameters, examples, a documented error shape, a
 * collection with create, read, update, delete and list) and a 3.1 shop (API keys in a header, the query and
 * a cookie, Basic, OAuth 2, type arrays, `examples`, 422 for invalid bodies, generated answers).
 */

export const petstore30 = {
  openapi: '3.0.3',
  info: { title: 'Pet Store', version: '1.0.0' },
  servers: [{ url: 'https://pets.example.com/v1' }],
  security: [{ bearerAuth: [] }],
  paths: {
    '/pets': {
      get: {
        operationId: 'listPets',
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 } },
          { name: 'status', in: 'query', schema: { type: 'string', enum: ['available', 'pending', 'sold'] } },
          { name: 'tags', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
        ],
        responses: {
          '200': {
            description: 'pets',
            content: {
              'application/json': {
                schema: { type: 'array', items: { $ref: '#/components/schemas/Pet' } },
                example: [{ id: 1, name: 'Rex', tag: 'dog', status: 'available' }],
              },
            },
          },
          default: { $ref: '#/components/responses/Error' },
        },
      },
      post: {
        operationId: 'createPet',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } } },
        responses: {
          '201': { description: 'created', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } },
          default: { $ref: '#/components/responses/Error' },
        },
      },
    },
    '/pets/{petId}': {
      parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'integer', format: 'int64' } }],
      get: {
        operationId: 'showPetById',
        responses: {
          '200': { description: 'a pet', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } },
          '404': { $ref: '#/components/responses/Error' },
        },
      },
      patch: {
        operationId: 'updatePet',
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/PetUpdate' } } } },
        responses: { '200': { description: 'updated', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } } },
      },
      delete: {
        operationId: 'deletePet',
        responses: { '204': { description: 'deleted' }, '404': { $ref: '#/components/responses/Error' } },
      },
    },
    '/pets/{petId}/photos': {
      post: {
        operationId: 'uploadPhoto',
        parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'integer' } }],
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: ['file'],
                properties: { file: { type: 'string', format: 'binary' }, caption: { type: 'string', maxLength: 40 }, primary: { type: 'boolean' } },
              },
            },
          },
        },
        responses: {
          '201': {
            description: 'stored',
            content: {
              'application/json': {
                schema: { type: 'object', required: ['url'], properties: { url: { type: 'string', format: 'uri' }, size: { type: 'integer', minimum: 0 } } },
              },
            },
          },
        },
      },
    },
    '/login': {
      post: {
        operationId: 'login',
        security: [],
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                type: 'object',
                required: ['username', 'password'],
                properties: {
                  username: { type: 'string' },
                  password: { type: 'string' },
                  remember: { type: 'boolean' },
                  ttl: { type: 'integer', maximum: 3600 },
                },
              },
            },
          },
        },
        responses: {
          '200': {
            description: 'a session',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['token', 'expires_at'],
                  properties: { token: { type: 'string' }, expires_at: { type: 'string', format: 'date-time' } },
                },
              },
            },
          },
        },
      },
    },
    '/stores/{storeId}/inventory': {
      get: {
        operationId: 'getInventory',
        parameters: [
          { name: 'storeId', in: 'path', required: true, schema: { type: 'string', pattern: '^st-[0-9]{3}$' } },
          { name: 'X-Request-Id', in: 'header', required: true, schema: { type: 'string', format: 'uuid' } },
          { name: 'X-Page-Size', in: 'header', schema: { type: 'integer', maximum: 50 } },
          { name: 'session', in: 'cookie', required: true, schema: { type: 'string' } },
        ],
        responses: {
          '200': {
            description: 'counts by status',
            content: { 'application/json': { schema: { type: 'object', additionalProperties: { type: 'integer' }, minProperties: 1 } } },
          },
        },
      },
    },
  },
  components: {
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
    responses: {
      Error: { description: 'an error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    },
    schemas: {
      NewPet: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1, example: 'Fido' },
          tag: { type: 'string', nullable: true },
          status: { type: 'string', enum: ['available', 'pending', 'sold'] },
        },
      },
      Pet: {
        allOf: [
          { $ref: '#/components/schemas/NewPet' },
          { type: 'object', required: ['id'], properties: { id: { type: 'integer', format: 'int64', readOnly: true } } },
        ],
      },
      PetUpdate: { type: 'object', properties: { name: { type: 'string', minLength: 1 }, status: { type: 'string', enum: ['available', 'pending', 'sold'] } } },
      Error: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'integer', format: 'int32' }, message: { type: 'string' } },
      },
    },
  },
};

export const shop31 = {
  openapi: '3.1.0',
  info: { title: 'Shop', version: '2.0.0' },
  security: [{ apiKeyHeader: [] }],
  paths: {
    '/orders': {
      get: {
        operationId: 'listOrders',
        parameters: [
          { name: 'cursor', in: 'query', schema: { type: ['string', 'null'] } },
          { name: 'filter', in: 'query', style: 'deepObject', schema: { type: 'object', properties: { state: { type: 'string', enum: ['open', 'closed'] } } } },
        ],
        responses: {
          '200': {
            description: 'a page of orders',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['items', 'next'],
                  properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Order' } }, next: { type: ['string', 'null'] } },
                },
              },
            },
          },
        },
      },
      post: {
        operationId: 'createOrder',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/OrderInput' } } } },
        responses: {
          '201': {
            description: 'created',
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/Order' },
                examples: { simple: { value: { id: 'ord_0001', sku: 'SKU-1', quantity: 1, state: 'open', note: null } } },
              },
            },
          },
          '422': { description: 'invalid', content: { 'application/json': { schema: { $ref: '#/components/schemas/ValidationError' } } } },
        },
      },
    },
    '/orders/{orderId}': {
      get: {
        operationId: 'getOrder',
        parameters: [{ name: 'orderId', in: 'path', required: true, schema: { type: 'string', pattern: '^ord_[0-9]{4}$' } }],
        responses: { '200': { description: 'an order', content: { 'application/json': { schema: { $ref: '#/components/schemas/Order' } } } } },
      },
    },
    '/reports/daily': {
      get: {
        operationId: 'dailyReport',
        security: [{ apiKeyQuery: [] }],
        parameters: [{ name: 'day', in: 'query', required: true, schema: { type: 'string', format: 'date' } }],
        responses: { '200': { description: 'a report', content: { 'application/json': { schema: { $ref: '#/components/schemas/Report' } } } } },
      },
    },
    '/cart': {
      get: {
        operationId: 'getCart',
        security: [{ apiKeyCookie: [] }],
        responses: { '200': { description: 'the cart', content: { 'application/json': { schema: { $ref: '#/components/schemas/Cart' } } } } },
      },
    },
    '/admin/stats': {
      get: {
        operationId: 'adminStats',
        security: [{ basicAuth: [] }],
        responses: { '200': { description: 'stats', content: { 'text/plain': { schema: { type: 'string' }, example: 'orders=12' } } } },
      },
    },
    '/me': {
      get: {
        operationId: 'whoAmI',
        security: [{ oauth: ['profile'] }, { apiKeyHeader: [] }],
        responses: {
          '200': {
            description: 'the caller',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['id', 'email', 'kind'],
                  properties: {
                    id: { type: 'string', format: 'uuid' },
                    email: { type: 'string', format: 'email' },
                    kind: { const: 'user' },
                    scopes: { type: 'array', items: { type: 'string' }, uniqueItems: true },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
  components: {
    securitySchemes: {
      apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      apiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key' },
      apiKeyCookie: { type: 'apiKey', in: 'cookie', name: 'shop_session' },
      basicAuth: { type: 'http', scheme: 'basic' },
      oauth: {
        type: 'oauth2',
        flows: {
          authorizationCode: {
            authorizationUrl: 'https://shop.example.com/oauth/authorize',
            tokenUrl: 'https://shop.example.com/oauth/token',
            scopes: { profile: 'your profile' },
          },
        },
      },
    },
    schemas: {
      OrderInput: {
        type: 'object',
        required: ['sku', 'quantity'],
        properties: {
          sku: { type: 'string', pattern: '^SKU-[0-9]+$' },
          quantity: { type: 'integer', minimum: 1, maximum: 99 },
          note: { type: ['string', 'null'], maxLength: 200 },
        },
      },
      Order: {
        type: 'object',
        required: ['id', 'sku', 'quantity', 'state'],
        properties: {
          id: { type: 'string', pattern: '^ord_[0-9]{4}$', readOnly: true },
          sku: { type: 'string', pattern: '^SKU-[0-9]+$' },
          quantity: { type: 'integer', minimum: 1, maximum: 99 },
          state: { type: 'string', enum: ['open', 'closed'] },
          note: { type: ['string', 'null'] },
        },
      },
      Report: {
        type: 'object',
        required: ['day', 'totals'],
        properties: {
          day: { type: 'string', format: 'date' },
          totals: {
            type: 'array',
            minItems: 1,
            maxItems: 3,
            items: {
              type: 'object',
              required: ['currency', 'amount'],
              properties: { currency: { type: 'string', pattern: '^[A-Z]{3}$' }, amount: { type: 'number', exclusiveMinimum: 0 } },
            },
          },
          generated_at: { type: 'string', format: 'date-time' },
        },
      },
      Cart: {
        type: 'object',
        required: ['lines'],
        properties: {
          lines: {
            type: 'array',
            items: { type: 'object', required: ['sku'], properties: { sku: { type: 'string' }, quantity: { type: 'integer', minimum: 1 } } },
          },
        },
      },
      ValidationError: {
        type: 'object',
        required: ['error'],
        properties: {
          error: { type: 'object', required: ['message'], properties: { message: { type: 'string' }, fields: { type: 'array', items: { type: 'string' } } } },
        },
      },
    },
  },
};
