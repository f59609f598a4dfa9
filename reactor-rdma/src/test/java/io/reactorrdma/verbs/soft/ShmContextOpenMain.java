package io.reactorrdma.verbs.soft;

import io.reactorrdma.config.SoftConfig;
import java.nio.file.Paths;

/** Opens and closes one shm context in the directory given (args[0]): a context start reclaims dead contexts' files. */
public final class ShmContextOpenMain {

    private ShmContextOpenMain() {
    }

    public static void main(String[] args) {
        SoftContext.openShm(SoftConfig.defaults().withShmDirectory(Paths.get(args[0]))).close();
        System.out.println("OPENED");
    }
}
