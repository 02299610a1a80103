import type { FastifyInstance } from 'fastify';
import type { Context } from '../../context.ts';
import { leadVisitorRoutes } from '../leads/routes.ts';
import { fileVisitorRoutes } from '../visitor-files/routes.ts';
import { ticketVisitorRoutes } from '../tickets/routes.ts';
import { visitorRoutes } from './routes.ts';

export type VisitorPlugin = (app: FastifyInstance, ctx: Context) => Promise<void> | void;

/** Each area adds its visitor routes here with one line; registered inside the /visitor/v1 scope. */
export const visitorModules: VisitorPlugin[] = [
  visitorRoutes,
  leadVisitorRoutes,
  fileVisitorRoutes,
  ticketVisitorRoutes,
];
