package io.jccl.cli.run;

import io.jccl.CommConfig;
import io.jccl.JcclException;
import io.jccl.cli.LauncherWatch;
import io.jccl.cli.Main;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;

/**
 * The main class of every Java rank {@code jccl run} starts; the user's main class and its arguments follow. Before
 * the user's code runs it does what every rank needs and no program should have to ask for:
 * <ul>
 * <li>watches the launcher ({@link LauncherWatch}), so a rank whose launcher was killed stops instead of running
 *     on, orphaned, past the job's {@code --timeout};</li>
 * <li>checks the {@code JCCL_*} settings of the environment as communicator creation would, so a bad one is one
 *     line on standard error (exit status {@link Main#EXIT_CONFIG}) rather than a stack trace from wherever the
 *     program creates its communicator.</li>
 * </ul>
 * Then it runs the main class as the {@code java} launcher would (JEP 512: a {@code main(String[])} or
 * {@code main()}, static or an instance method of a new instance); what that main method throws propagates as
 * if it had been called directly.
 */
public final class RankMain {
    /** Exit status when the main class cannot be run (as {@code java}'s). */
    static final int EXIT_BAD_SETUP = 1;

    private RankMain() {
    }

    /**
     * @param args the user's main class, then its arguments
     * @throws Throwable whatever the user's main method throws
     */
    public static void main(String[] args) throws Throwable {
        String who = "jccl run: rank " + System.getenv().getOrDefault("JCCL_RANK", "?");
        if (args.length == 0) {
            System.err.println(who + ": " + RankMain.class.getName() + " needs the main class to run");
            System.exit(EXIT_BAD_SETUP);
        }
        try {
            LauncherWatch.start(who, System.getenv());
            CommConfig.DEFAULT.resolve(System.getenv());
        } catch (JcclException | IllegalArgumentException e) {
            System.err.println(who + ": " + e.getMessage());
            System.exit(Main.EXIT_CONFIG);
        }
        run(args[0], Arrays.copyOfRange(args, 1, args.length));
    }

    /** Loads {@code className} and calls its main method with {@code args}. */
    private static void run(String className, String[] args) throws Throwable {
        Class<?> mainClass;
        try {
            mainClass = Class.forName(className, false, ClassLoader.getSystemClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            System.err.println("Error: Could not find or load main class " + className);
            System.err.println("Caused by: " + e);
            System.exit(EXIT_BAD_SETUP);
            return;
        }
        Method main = findMain(mainClass);
        if (main == null) {
            System.err.println("Error: Main method not found in class " + className + ", please define the main "
                    + "method as:\n   public static void main(String[] args)\nor a JavaFX application class must "
                    + "extend javafx.application.Application");
            System.exit(EXIT_BAD_SETUP);
            return;
        }
        main.setAccessible(true);
        try {
            Object target = null;
            if (!Modifier.isStatic(main.getModifiers())) {
                Constructor<?> constructor = mainClass.getDeclaredConstructor();
                if (Modifier.isPrivate(constructor.getModifiers())) {
                    throw new NoSuchMethodException("a non-private constructor without parameters");
                }
                constructor.setAccessible(true);
                target = constructor.newInstance();
            }
            if (main.getParameterCount() == 1) {
                main.invoke(target, (Object) args);
            } else {
                main.invoke(target);
            }
        } catch (InvocationTargetException e) {
            throw e.getCause();
        } catch (NoSuchMethodException e) {
            System.err.println("Error: " + className + " has an instance main method but no non-private constructor "
                    + "without parameters");
            System.exit(EXIT_BAD_SETUP);
        }
    }

    /**
     * The main method the {@code java} launcher would pick: a non-private {@code void main(String[])}, declared or
     * inherited, else a non-private {@code void main()}.
     *
     * @return the method, or null when there is none
     */
    static Method findMain(Class<?> c) {
        Method withArgs = find(c, String[].class);
        return withArgs != null ? withArgs : find(c);
    }

    private static Method find(Class<?> c, Class<?>... parameters) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            try {
                Method m = k.getDeclaredMethod("main", parameters);
                if (!Modifier.isPrivate(m.getModifiers()) && m.getReturnType() == void.class) {
                    return m;
                }
            } catch (NoSuchMethodException e) {
                // look further up
            }
        }
        try {
            Method m = c.getMethod("main", parameters);   // public default methods of interfaces
            return m.getReturnType() == void.class ? m : null;
        } catch (NoSuchMethodException e) {
            return null;
        }
    }
}
