/**
 * Where the demo shop keeps what its tools create: users and orders, in a small SQLite database of its
 * own. The shop's static data (products, discount codes, shipping rates) never goes here; it ships with
 * the toolkit.
 */
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { Database as SqliteDatabase } from 'better-sqlite3';
import type { Address, Customer, ShippingMethod } from './data.js';

export type Priority = 'low' | 'normal' | 'high' | 'urgent';

export interface OrderItem {
  product_id: string;
  name: string;
  category: string;
  quantity: number;
  customizations: Record<string, string>;
  unit_price: number;
  line_total: number;
}

/** An order as CreateOrder places it, and as GetCustomerInfo lists it back. */
export interface Order {
  id: string;
  status: 'confirmed';
  created_at: string;
  customer_id: string;
  customer_email: string;
  priority: Priority;
  notification_email: string;
  gift_message?: string;
  items: OrderItem[];
  discount: { code: string; percentage: number; amount: number } | null;
  shipping: {
    method: ShippingMethod;
    cost: number;
    estimated_delivery: string;
    address: Address & { recipient: string };
  };
  subtotal: number;
  total: number;
  currency: string;
}

export interface CommerceStore {
  userByEmail(email: string): Customer | undefined;
  userById(id: string): Customer | undefined;
  /** False, and nothing written, when a user with that email already exists. */
  addUser(user: Customer): boolean;
  addOrder(order: Order): void;
  /** Oldest first. */
  ordersOf(customerId: string): Order[];
  close(): void;
}

const schema = `
  CREATE TABLE IF NOT EXISTS users (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL UNIQUE COLLATE NOCASE,
    record TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS orders (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    customer_id TEXT NOT NULL,
    record TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS orders_by_customer ON orders (customer_id, seq);
`;

/**
 * Opens (creating if need be) the store at `location`, a file path or ':memory:'. better-sqlite3 is
 * loaded here, on first use, so that serving the tool list never loads a native module.
 */
export function openCommerceStore(location: string): CommerceStore {
  const Database = createRequire(import.meta.url)('better-sqlite3') as typeof import('better-sqlite3');
  let db: SqliteDatabase;
  try {
    if (location !== ':memory:') {
      // In the engine's data directory, which is the owner's alone: so are the directory and this file.
      mkdirSync(dirname(location), { recursive: true, mode: 0o700 });
      closeSync(openSync(location, 'a', 0o600));
      chmodSync(location, 0o600);
    }
    db = new Database(location);
    // Several processes (the engine, a `quiver call`) may share the file.
    if (location !== ':memory:') db.pragma('journal_mode = WAL');
    db.exec(schema);
  } catch (cause) {
    // Said with the path: the usual cause is a data directory the process may not write.
    throw new Error(`CommerceTools cannot open its store ${location}: ${(cause as Error).message}`);
  }

  const parse = <T>(row: unknown): T | undefined => (row ? (JSON.parse((row as { record: string }).record) as T) : undefined);
  const byEmail = db.prepare('SELECT record FROM users WHERE email = ?');
  const byId = db.prepare('SELECT record FROM users WHERE id = ?');
  const insertUser = db.prepare('INSERT INTO users (id, email, record) VALUES (?, ?, ?) ON CONFLICT (email) DO NOTHING');
  const insertOrder = db.prepare('INSERT INTO orders (id, customer_id, record) VALUES (?, ?, ?)');
  const ordersOf = db.prepare('SELECT record FROM orders WHERE customer_id = ? ORDER BY seq');

  return {
    userByEmail: (email) => parse<Customer>(byEmail.get(email)),
    userById: (id) => parse<Customer>(byId.get(id)),
    addUser: (user) => insertUser.run(user.id, user.email, JSON.stringify(user)).changes === 1,
    addOrder: (order) => void insertOrder.run(order.id, order.customer_id, JSON.stringify(order)),
    ordersOf: (customerId) => ordersOf.all(customerId).map((row) => parse<Order>(row)!),
    close: () => db.close(),
  };
}
