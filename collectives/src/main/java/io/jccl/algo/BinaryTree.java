package io.jccl.algo;

/**
 * A balanced binary tree over ranks in in-order numbering (node {@code x = 1..n}; a node's height is its
 * number of trailing zero bits), and its complement for the double binary tree: the second tree maps ranks so
 * that (for even n exactly) the leaves of one tree are the inner nodes of the other, as NCCL does.
 *
 * @param parent this rank's parent, or -1 at the root
 * @param child0 this rank's first child, or -1
 * @param child1 this rank's second child, or -1
 */
public record BinaryTree(int parent, int child0, int child1) {

    /**
     * @param n    number of ranks
     * @param rank this rank
     * @param tree 0 or 1
     * @return this rank's neighbours in that tree
     */
    public static BinaryTree of(int n, int rank, int tree) {
        int node = toNode(n, rank, tree);
        int p = parentNode(node, n);
        int[] c = childNodes(node, n);
        return new BinaryTree(p == 0 ? -1 : toRank(n, p, tree), c[0] == 0 ? -1 : toRank(n, c[0], tree),
                c[1] == 0 ? -1 : toRank(n, c[1], tree));
    }

    static int toNode(int n, int rank, int tree) {
        if (tree == 0) {
            return rank + 1;
        }
        return n % 2 == 0 ? n - rank : (rank + 1) % n + 1;
    }

    static int toRank(int n, int node, int tree) {
        if (tree == 0) {
            return node - 1;
        }
        return n % 2 == 0 ? n - node : Math.floorMod(node - 2, n);
    }

    private static int rawParent(int x) {
        int t = Integer.numberOfTrailingZeros(x);
        return ((x >>> (t + 1)) & 1) == 1 ? x - (1 << t) : x + (1 << t);
    }

    /** @return the parent node, 0 for the root */
    static int parentNode(int x, int n) {
        if (x == Integer.highestOneBit(n)) {
            return 0;
        }
        int p = rawParent(x);
        while (p > n) {
            p = rawParent(p);
        }
        return p;
    }

    /** @return the two child nodes, 0 where absent */
    static int[] childNodes(int x, int n) {
        int t = Integer.numberOfTrailingZeros(x);
        if (t == 0) {
            return new int[] {0, 0};
        }
        int left = x - (1 << (t - 1));
        int right = x + (1 << (t - 1));
        while (right > n) {
            int tr = Integer.numberOfTrailingZeros(right);
            if (tr == 0) {
                right = 0;
                break;
            }
            right -= 1 << (tr - 1);
        }
        return new int[] {left, right};
    }
}
