package io.reactorrdma.rsocket.shard;

import io.rsocket.exceptions.ApplicationErrorException;
import io.rsocket.exceptions.ConnectionCloseException;
import io.rsocket.exceptions.ConnectionErrorException;
import io.rsocket.exceptions.RejectedException;

import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeoutException;

/**
 * Which failures of an idempotent call are worth another attempt on another replica: the
 * connection was lost ({@link ClosedChannelException}, RSocket's {@link ConnectionErrorException}
 * and {@link ConnectionCloseException}), the attempt timed out ({@link TimeoutException}), or the
 * replica refused it ({@link RejectedException}, which includes RSocket's missing-lease
 * rejection). An application's own error ({@link ApplicationErrorException}) and everything else
 * (invalid requests, setup errors) would fail again: they are not retried.
 */
final class RetryableErrors {

    private RetryableErrors() {
    }

    static boolean isRetryable(Throwable error) {
        if (error instanceof ApplicationErrorException) {
            return false;
        }
        return error instanceof ClosedChannelException
                || error instanceof ConnectionErrorException
                || error instanceof ConnectionCloseException
                || error instanceof TimeoutException
                || error instanceof RejectedException;
    }
}
