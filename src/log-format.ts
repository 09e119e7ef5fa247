// LOG_FORMAT: where the service's pino log lines go, as JSON (pino's own) or through pino-pretty for a person to read.
import { errorCode } from './domain/errors.ts';
import type { FastifyLoggerOptions } from 'fastify';
import { ConfigError, type Config, type LogFormat } from './config.ts';

type LogStream = NonNullable<FastifyLoggerOptions['stream']>;
/** Makes a stream that prints pino's JSON lines readably on standard output. */
type PrettyPrinter = () => LogStream;

/** pino-pretty (a dependency; a deployment may still prune it): undefined when it is not installed. */
async function importPinoPretty(): Promise<PrettyPrinter | undefined> {
  try {
    const { default: pinoPretty } = await import('pino-pretty');
    // Written synchronously, as pino's own lines are: the last ones before process.exit() are not lost.
    return () => pinoPretty({ sync: true });
  } catch (error) {
    if (errorCode(error) === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw error;
  }
}

/**
 * The pretty-printing stream `format` asks for, or undefined for pino's JSON lines on standard output: `auto` prints
 * pretty only to a terminal (piped lines go to programs, which read JSON), and only when pino-pretty is installed.
 */
export async function prettyLogStream(
  format: LogFormat,
  stdoutIsTerminal: boolean,
  loadPrettyPrinter: () => Promise<PrettyPrinter | undefined> = importPinoPretty,
): Promise<LogStream | undefined> {
  if (format === 'json' || (format === 'auto' && !stdoutIsTerminal)) return undefined;
  const prettyPrinter = await loadPrettyPrinter();
  if (prettyPrinter) return prettyPrinter();
  if (format === 'pretty') {
    throw new ConfigError(
      'LOG_FORMAT',
      'is pretty, but pino-pretty is not installed: npm install pino-pretty, or LOG_FORMAT=json',
    );
  }
  return undefined;
}

/** Fastify's logger options for this configuration: LOG_LEVEL, in the format LOG_FORMAT chooses. */
export async function loggerOptions(config: Pick<Config, 'logLevel' | 'logFormat'>): Promise<FastifyLoggerOptions> {
  const stream = await prettyLogStream(config.logFormat, process.stdout.isTTY === true);
  return { level: config.logLevel, ...(stream ? { stream } : {}) };
}
