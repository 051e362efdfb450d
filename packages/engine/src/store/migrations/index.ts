import type { Migration } from 'kysely';
import * as initial from './0001_initial.js';
import * as oauthFlows from './0002_oauth_flows.js';
import * as keyRoles from './0003_key_roles.js';
import * as authorizationServer from './0004_authorization_server.js';
import * as routingAndRecords from './0005_routing_and_records.js';
import * as authorizationServerGrants from './0007_authorization_server_grants.js';
import * as auditEvents from './0008_audit_events.js';
import * as executionTraceParent from './0009_execution_trace_parent.js';
import * as apiKeyLimits from './0010_api_key_limits.js';
import * as changeNotifications from './0011_change_notifications.js';
import * as executionOutput from './0012_execution_output.js';

/** Every migration, in order. Add new ones at the end; never edit one that has shipped. */
export const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_oauth_flows': oauthFlows,
  '0003_key_roles': keyRoles,
  '0004_authorization_server': authorizationServer,
  '0005_routing_and_records': routingAndRecords,
  '0007_authorization_server_grants': authorizationServerGrants,
  '0008_audit_events': auditEvents,
  '0009_execution_trace_parent': executionTraceParent,
  '0010_api_key_limits': apiKeyLimits,
  '0011_change_notifications': changeNotifications,
  '0012_execution_output': executionOutput,
};
